/**
 * @module Where a client's `jwks_uri` may point. The document's own URL is allowlisted, but the
 * key URL inside it is the document's choice, so it is checked before this server fetches it:
 * https only, and never a name or address of this machine or its private networks (a document
 * must not be able to make the server probe what only it can reach). Names are checked as
 * written; the real fetcher refuses redirects, so a public name cannot bounce the fetch inward.
 */
import { isIP } from "node:net";

export function jwksUriProblem(uri: string): string | undefined {
  if (!URL.canParse(uri)) return "the client's jwks_uri is not a URL";
  const url = new URL(uri);
  if (url.protocol !== "https:") return "a client's jwks_uri must be https";
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || isInternalAddress(host)) {
    return "a client's jwks_uri must not point at this machine or a private network";
  }
  return undefined;
}

function isInternalAddress(host: string): boolean {
  const version = isIP(host);
  if (version === 4) {
    const [a = 0, b = 0] = host.split(".").map(Number);
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (version === 6) {
    // The URL parser writes an IPv4-mapped address in hex (`::ffff:7f00:1`).
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
    if (mapped !== null) {
      const high = Number.parseInt(mapped[1] as string, 16);
      const low = Number.parseInt(mapped[2] as string, 16);
      return isInternalAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
    }
    return host === "::" || host === "::1" || /^f[cd]/.test(host) || /^fe[89ab]/.test(host);
  }
  return false;
}
