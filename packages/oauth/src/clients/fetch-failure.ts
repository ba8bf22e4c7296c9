/**
 * @module Why a metadata or key fetch failed, in words a person can act on: the name did not
 * resolve (DNS), the host refused the connection, it did not answer in time, its TLS certificate
 * did not verify, it redirected, or the connection broke. Node's fetch hides each behind one
 * `TypeError: fetch failed` whose `cause` carries the system or TLS code; a bare "(TypeError)"
 * told nobody whether to look at the network, the clock or the host.
 */

const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NODATA", "EAI_NONAME"]);
const REFUSED_CODES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ENETDOWN"]);
const TIMEOUT_CODES = new Set(["ETIMEDOUT", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT"]);
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

/** The reason a fetch threw, as "kind: what happened (code)". */
export function fetchFailureReason(error: unknown, timeoutMs: number): string {
  if (isNamed(error, "TimeoutError") || isNamed(error, "AbortError"))
    return `timeout: no answer within ${timeoutMs / 1000} s`;
  const cause = rootCause(error);
  const code = typeof cause.code === "string" ? cause.code : undefined;
  const said = code === undefined ? "" : ` (${code})`;
  if (code !== undefined && DNS_CODES.has(code)) return `DNS: the host name did not resolve${said}`;
  if (code !== undefined && REFUSED_CODES.has(code)) return `refused: the host could not be reached${said}`;
  if (code !== undefined && TIMEOUT_CODES.has(code)) return `timeout: the host did not answer${said}`;
  if (code !== undefined && TLS_CODE.test(code)) return `TLS: the host's certificate did not verify${said}`;
  if (/redirect/i.test(cause.message ?? ""))
    return "redirect: the host answered with a redirect, which is not followed";
  if (code !== undefined) return `network: the connection failed${said}`;
  const name = error instanceof Error ? error.name : "error";
  return `network: the fetch failed (${name}${cause.message ? `: ${cause.message}` : ""})`;
}

interface CauseFacts {
  readonly code?: unknown;
  readonly message?: string;
}

/** The innermost `cause` (undici nests the socket's error one or two levels down). */
function rootCause(error: unknown): CauseFacts {
  let current: unknown = error;
  for (let depth = 0; depth < 4; depth += 1) {
    const next = (current as { cause?: unknown } | null)?.cause;
    if (typeof next !== "object" || next === null) break;
    current = next;
  }
  if (typeof current !== "object" || current === null) return {};
  const facts = current as { code?: unknown; message?: unknown };
  return { code: facts.code, message: typeof facts.message === "string" ? facts.message : undefined };
}

function isNamed(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}
