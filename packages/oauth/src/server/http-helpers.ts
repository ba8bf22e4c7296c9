/**
 * @module What every endpoint of the authorization server shares: bounded bodies (core's one reader,
 * ADR 0056), the page's Origin, the OAuth error answer (RFC 6749 §5.2) built from a ConnectorError,
 * and the client address for rate limits.
 */
import { ConnectorError } from "@t3-connector/core";
import { checkOrigin, readBoundedBody, utf8Text } from "@t3-connector/core/http-edge";
import type { Context } from "hono";

/** A token, revocation or registration request is a few hundred bytes; 16 KiB is generous. */
export const MAX_FORM_BYTES = 16 * 1024;

/** Reads at most `maxBytes` of the body (a declared length over it is refused unread). */
export async function readBoundedText(request: Request, maxBytes: number): Promise<string> {
  const read = await readBoundedBody(request, { maxBytes });
  if (read.kind === "too_large") throw tooLarge();
  if (read.kind !== "ok") throw new ConnectorError("invalid_request", "the request body was cut off");
  const text = utf8Text(read.bytes);
  if (text === undefined) throw new ConnectorError("invalid_request", "the request body is not UTF-8");
  return text;
}

/**
 * A call of this server's own pages: `Origin` exactly the issuer (core's one Origin check, ADR
 * 0056); anything else, `null` and none included, is `origin_or_method_invalid`.
 */
export function assertOwnPage(c: Context, issuer: string, message: string): void {
  if (!checkOrigin(c.req.raw.headers, { origins: new Set([issuer.toLowerCase()]) }, "required").ok) {
    throw new ConnectorError("origin_or_method_invalid", message);
  }
}

/** An `application/x-www-form-urlencoded` body (the token and revocation endpoints). */
export async function readForm(c: Context): Promise<URLSearchParams> {
  const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw new ConnectorError("invalid_request", "send application/x-www-form-urlencoded");
  }
  const params = new URLSearchParams(await readBoundedText(c.req.raw, MAX_FORM_BYTES));
  // RFC 6749 §3.1: a parameter sent twice is an error, not a choice.
  const seen = new Set<string>();
  for (const key of params.keys()) {
    if (seen.has(key)) throw new ConnectorError("invalid_request", `${key} was sent more than once`);
    seen.add(key);
  }
  return params;
}

/** A JSON body (registration, the page's calls). */
export async function readJson(c: Context, maxBytes = MAX_FORM_BYTES): Promise<unknown> {
  const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") throw new ConnectorError("invalid_request", "send application/json");
  const text = await readBoundedText(c.req.raw, maxBytes);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ConnectorError("invalid_request", "the body is not JSON");
  }
}

const WIRE_STATUS: Partial<Record<string, number>> = {
  invalid_client: 401,
  rate_limited: 429,
  body_too_large: 413,
  internal: 500,
};

/** The OAuth codes answered as they are; any other ConnectorError is `invalid_request`. */
const WIRE_CODES = new Set([
  "invalid_request",
  "invalid_grant",
  "invalid_client",
  "invalid_target",
  "unsupported_grant_type",
  "invalid_redirect_uri",
  "invalid_client_metadata",
  "access_denied",
]);

/**
 * A state file the server cannot read (`state_dir_invalid`, e.g. a damaged `revocations.json`):
 * the answer names the file, so the owner knows which one to repair, but not its path. The server
 * fails closed until it is fixed. Undefined for any other error.
 */
export function damagedStateAnswer(
  error: unknown,
): { error: "server_error"; error_description: string; file: string } | undefined {
  if (!(error instanceof ConnectorError) || error.code !== "state_dir_invalid") return undefined;
  const file = typeof error.details?.file === "string" ? error.details.file : "a state file";
  return {
    error: "server_error",
    error_description: `the server's OAuth state file ${file} is damaged; its owner must repair or remove it (the server's log names the path)`,
    file,
  };
}

/** `{error, error_description}` with the status RFC 6749 gives it; never a stack or a secret. */
export function oauthErrorResponse(c: Context, error: unknown): Response {
  if (!(error instanceof ConnectorError)) throw error;
  const damaged = damagedStateAnswer(error);
  if (damaged !== undefined) {
    c.header("Retry-After", "60");
    return c.json(damaged, 503);
  }
  const status = WIRE_STATUS[error.code] ?? 400;
  const code =
    error.code === "rate_limited"
      ? "too_many_requests"
      : error.code === "body_too_large"
        ? "invalid_request"
        : WIRE_CODES.has(error.code)
          ? error.code
          : "invalid_request";
  if (status === 401) c.header("WWW-Authenticate", 'Basic realm="t3-connector"');
  if (status === 429) c.header("Retry-After", "60");
  c.header("Pragma", "no-cache");
  return c.json({ error: code, error_description: error.message }, status as 400);
}

function tooLarge(): ConnectorError {
  return new ConnectorError("body_too_large", "the request body is over the limit");
}

/** The socket's peer under @hono/node-server; one shared bucket without a socket. */
export function clientAddress(c: Context): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? "local";
}
