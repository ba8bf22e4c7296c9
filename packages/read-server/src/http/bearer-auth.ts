import { createHash, timingSafeEqual } from "node:crypto";
import { ConnectorError } from "@t3-connector/core";
import { readTokenFile, type TokenFileOptions } from "@t3-connector/core/config";
import type { MiddlewareHandler } from "hono";
import { isLoopbackHost } from "./loopback.js";

/**
 * A guessable token would undo the point of requiring one; 32 characters is what
 * `openssl rand -hex 16` prints, the least we accept (the docs suggest `rand -hex 32`).
 */
export const MIN_BEARER_TOKEN_LENGTH = 32;

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
 * `Authorization: Bearer <token>` required on every request it guards. Both sides are hashed
 * first so the comparison takes the same time whatever the length or the first differing byte.
 * A missing or wrong token gets 401 with `WWW-Authenticate: Bearer` and nothing else.
 */
export function bearerGuard(token: string): MiddlewareHandler {
  const expected = digest(token);
  return async function checkBearer(c, next) {
    const presented = /^Bearer +([\x21-\x7e]+) *$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
      c.header("WWW-Authenticate", 'Bearer realm="t3-connector"');
      return c.json({ error: "unauthorized" }, 401);
    }
    await next();
  };
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}
