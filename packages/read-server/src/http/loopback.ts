import { isIP } from "node:net";

/**
 * Whether binding `host` keeps the server reachable from this machine only: `localhost`, any
 * 127.0.0.0/8 address or `::1`. Anything else (a LAN address, 0.0.0.0, ::) lets other machines
 * connect, so a bearer token becomes required.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = unbracket(host).toLowerCase();
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) === 6) return bare === "::1" || bare === "0:0:0:0:0:0:0:1" || bare.startsWith("::ffff:127.");
  return false;
}

/** `[::1]` → `::1`; anything else unchanged. */
export function unbracket(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** How `host` appears in a URL or a `Host` header: IPv6 addresses in brackets. */
export function urlHost(host: string): string {
  const bare = unbracket(host);
  return isIP(bare) === 6 ? `[${bare}]` : bare;
}
