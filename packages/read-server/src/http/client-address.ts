/**
 * Which client a request to `serve --http` came from (ADR 0044). The TCP peer, unless the peer is
 * a proxy the operator named with `--trusted-proxy`: then the address that proxy reports in
 * `X-Forwarded-For` (or, without it, `Forwarded: for=`), read from the right and skipping the
 * operator's own proxies, so a value the client itself wrote further left never counts. A header
 * from any other peer is ignored: anyone can write one.
 */
import { isIP } from "node:net";

export interface ClientAddress {
  /** The address budgets are keyed by. */
  readonly address: string;
  /** The peer sent forwarding headers but is not trusted: the operator may want `--trusted-proxy`. */
  readonly untrustedForwarding: boolean;
}

export function clientAddressOf(
  peer: string | undefined,
  headers: Headers,
  trusted: ReadonlySet<string>,
): ClientAddress {
  const address = normalise(peer ?? "") ?? "unknown";
  const hops = forwardedHops(headers);
  if (hops === undefined) return { address, untrustedForwarding: false };
  if (!trusted.has(address)) return { address, untrustedForwarding: true };
  // Right to left: the nearest hop a trusted proxy saw that is not itself one of ours.
  for (let index = hops.length - 1; index >= 0; index -= 1) {
    const hop = normalise(hops[index] ?? "");
    // A hop that is not an address (obfuscated, `unknown`, garbage): the proxy vouches for no one.
    if (hop === undefined) return { address, untrustedForwarding: false };
    if (!trusted.has(hop) || index === 0) return { address: hop, untrustedForwarding: false };
  }
  return { address, untrustedForwarding: false };
}

/** The set `clientAddressOf` compares with. */
export function trustedProxySet(values: readonly string[]): ReadonlySet<string> {
  return new Set(values.map((value) => normalise(value) ?? value));
}

/** The hops named, oldest first: every `X-Forwarded-For` line, else `Forwarded`'s `for=`. */
function forwardedHops(headers: Headers): string[] | undefined {
  const xff = headers.get("x-forwarded-for");
  if (xff !== null) return xff.split(",").map((hop) => hop.trim());
  const forwarded = headers.get("forwarded");
  if (forwarded === null) return undefined;
  return forwarded.split(",").map((element) => forParameter(element) ?? "");
}

/** `for=` of one `Forwarded` element (RFC 7239), quotes removed; undefined without one. */
function forParameter(element: string): string | undefined {
  for (const pair of element.split(";")) {
    const [name, ...rest] = pair.split("=");
    if (name?.trim().toLowerCase() === "for")
      return rest
        .join("=")
        .trim()
        .replace(/^"(.*)"$/, "$1");
  }
  return undefined;
}

/** An IP address as one spelling (`1.2.3.4`, `::1`), port and brackets removed; undefined if none. */
function normalise(raw: string): string | undefined {
  let value = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed?.[1] !== undefined) value = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(":"));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(value);
  if (mapped?.[1] !== undefined) value = mapped[1];
  return isIP(value) === 0 ? undefined : value.toLowerCase();
}
