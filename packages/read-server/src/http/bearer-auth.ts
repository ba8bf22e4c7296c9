import { ConnectorError } from "@t3-connector/core";
import { readTokenFile, type TokenFileOptions } from "@t3-connector/core/config";
import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { HTTPException } from "hono/http-exception";
import { isLoopbackHost } from "./loopback.js";

/**
 * A guessable token would undo the point of requiring one; 32 characters is what
 * `openssl rand -hex 16` prints, the least we accept (the docs suggest `rand -hex 32`).
 */
export const MIN_BEARER_TOKEN_LENGTH = 32;

/**
 * What an `Authorization: Bearer` value may hold (RFC 6750 §2.1 `b64token`), and so what Hono's
 * bearer check accepts: a token outside it could never be presented, so it is refused at start.
 */
const B64TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;

/**
 * Reads the HTTP bearer token with exactly the checks of the environments' token files (regular
 * file, owned by this user, mode 600, directory 700), then refuses a token too short to be secret.
 */
export async function loadBearerToken(path: string, options: TokenFileOptions = {}): Promise<string> {
  const token = await readTokenFile(path, {
    what: "--auth-token-file",
    whenMissing: `create it with: (umask 077; openssl rand -hex 32 > ${path})`,
    ...options,
  });
  if (token.length < MIN_BEARER_TOKEN_LENGTH) {
    throw new ConnectorError(
      "token_file_invalid",
      `token file ${path} holds ${token.length} characters; an HTTP bearer token needs at least ` +
        `${MIN_BEARER_TOKEN_LENGTH} (e.g. openssl rand -hex 32 > ${path})`,
      { details: { path } },
    );
  }
  if (!B64TOKEN.test(token)) {
    throw new ConnectorError(
      "token_file_invalid",
      `token file ${path} holds characters a bearer token cannot carry (RFC 6750: letters, digits, ` +
        `-._~+/ and trailing =); write a new one with: openssl rand -hex 32 > ${path}`,
      { details: { path } },
    );
  }
  return token;
}

/**
 * Refuses to serve a non-loopback address without a token: anyone who can reach the port could
 * otherwise read every allowed thread. On loopback the token is optional (as for the stdio server,
 * any local process can already start one).
 */
export function assertBindIsProtected(host: string, authTokenFile: string | undefined): void {
  if (authTokenFile !== undefined || isLoopbackHost(host)) return;
  throw new ConnectorError(
    "auth_token_required",
    `--host ${host} is not a loopback address and needs --auth-token-file: other machines can reach it, ` +
      "so every request must carry a bearer token (or bind 127.0.0.1)",
    { details: { host } },
  );
}

/**
 * `Authorization: Bearer <token>` required on every request it guards: Hono's bearer check (ADR
 * 0056), which compares SHA-256 digests of both sides in constant time. Every refusal — no header, a
 * malformed one, a wrong token — is the same 401 with `WWW-Authenticate: Bearer realm=…` and
 * `{"error":"unauthorized"}`, so a caller learns nothing about how close it came.
 */
export function bearerGuard(token: string): MiddlewareHandler {
  const challenge = 'Bearer realm="t3-connector"';
  const refusal = () =>
    new Response(JSON.stringify({ error: "unauthorized" }), {
      status: 401,
      headers: { "Content-Type": "application/json", "WWW-Authenticate": challenge },
    });
  const refused = { message: refusal, wwwAuthenticateHeader: challenge };
  const check = bearerAuth({
    token,
    realm: "t3-connector",
    noAuthenticationHeader: refused,
    invalidAuthenticationHeader: refused,
    invalidToken: refused,
  });
  return async function checkBearer(c, next) {
    try {
      return await check(c, next);
    } catch (error) {
      // Hono's check throws its refusal; this app answers errors it did not expect with 500.
      if (error instanceof HTTPException) return error.getResponse();
      throw error;
    }
  };
}
