/**
 * @module The resource server's check on every `/mcp` request: the issuer's Host only, a bearer
 * token in the header (never the query) that this server issued for exactly this resource, from a
 * live session, with the read scope. A `tools/call` restarts the session's idle window; nothing
 * else does (not `initialize`, `tools/list`, `ping` or a refresh). A damaged state file fails
 * closed with 503 naming the file (never its path or contents).
 */
import { ConnectorError } from "@t3-connector/core";
import type { Context, MiddlewareHandler } from "hono";
import { type OAuthSettings, READ_SCOPE } from "../settings/index.js";
import type { SessionBook, VerifiedAccess } from "../state/session-book.js";
import { type RefusalLog, refuseForeignHost } from "./host-pin.js";
import { damagedStateAnswer, readBoundedText } from "./http-helpers.js";
import { endpoints } from "./metadata.js";

export function resourceGuard(options: {
  settings: OAuthSettings;
  sessions: SessionBook;
  maxBodyBytes: number;
  refusals: RefusalLog;
}): MiddlewareHandler {
  const { settings, sessions } = options;
  const metadataUrl = endpoints(settings).resourceMetadata;
  const challenge = (error?: string) =>
    `Bearer ${error === undefined ? "" : `error="${error}", `}resource_metadata="${metadataUrl}", scope="${READ_SCOPE}"`;
  const checkAccessToken: MiddlewareHandler = async (c, next) => {
    const refused = refuseForeignHost(c, settings, options.refusals);
    if (refused !== undefined) return refused;
    const presented = /^Bearer +([\x21-\x7e]+) *$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (presented === undefined) {
      c.header("WWW-Authenticate", challenge());
      return c.json({ error: "unauthorized" }, 401);
    }
    const access = await sessions.verifyAccess(presented);
    // Audience: a token is only good for the one resource it was bound to (RFC 8707).
    if (access === undefined || access.resource !== settings.resource) {
      c.header("WWW-Authenticate", challenge("invalid_token"));
      return c.json({ error: "invalid_token" }, 401);
    }
    if (!access.scope.includes(READ_SCOPE)) {
      c.header("WWW-Authenticate", challenge("insufficient_scope"));
      return c.json({ error: "insufficient_scope" }, 403);
    }
    grantedAccess.set(c, access);
    if (c.req.method === "POST") {
      let text: string;
      try {
        text = await readBoundedText(c.req.raw, options.maxBodyBytes);
      } catch (error) {
        if (error instanceof ConnectorError && error.code === "body_too_large") {
          return c.json({ error: "body_too_large" }, 413);
        }
        // Bytes that are not UTF-8 cannot be JSON-RPC: the transport's answer to unparsable JSON.
        if (error instanceof ConnectorError && error.code === "invalid_request") {
          return c.json(
            {
              jsonrpc: "2.0",
              error: { code: -32700, message: "Parse error: the body is not UTF-8" },
              id: null,
            },
            400,
          );
        }
        throw error;
      }
      if (callsATool(text)) await sessions.touch(access.sessionId);
      // The transport reads the body again: hand it the same bytes, same signal.
      c.req.raw = new Request(c.req.raw, { body: text });
    }
    await next();
  };
  return async function guardMcp(c, next) {
    try {
      return await checkAccessToken(c, next);
    } catch (error) {
      const damaged = damagedStateAnswer(error);
      if (damaged === undefined) throw error;
      return c.json(damaged, 503);
    }
  };
}

const grantedAccess = new WeakMap<Context, VerifiedAccess>();

/**
 * The session behind a `/mcp` request the guard let through: its scopes decide which tools the
 * request's server offers (the write tools only with `t3:write`, ADR 0049).
 */
export function accessOfRequest(c: Context): VerifiedAccess | undefined {
  return grantedAccess.get(c);
}

/** Whether a JSON-RPC message (or batch) holds a `tools/call`. */
function callsATool(text: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages.some(
    (message) =>
      typeof message === "object" &&
      message !== null &&
      (message as { method?: unknown }).method === "tools/call",
  );
}
