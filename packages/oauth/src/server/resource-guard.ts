/**
 * @module The resource server's check on every `/mcp` request: the issuer's Host only, a bearer
 * token in the header (never the query) that this server issued for exactly this resource, from a
 * live session, with the read scope; its challenge names every scope the server offers. A
 * `tools/call` restarts the session's idle window; nothing else does (not `initialize`,
 * `tools/list`, `ping` or a refresh). A damaged state file fails closed with 503 naming the file
 * (never its path or contents).
 */
import type { Context, MiddlewareHandler } from "hono";
import { type OAuthSettings, READ_SCOPE } from "../settings/index.js";
import type { SessionBook, VerifiedAccess } from "../state/session-book.js";
import { type RefusalLog, refuseForeignHost } from "./host-pin.js";
import { damagedStateAnswer } from "./http-helpers.js";
import { endpoints } from "./metadata.js";

export function resourceGuard(options: {
  settings: OAuthSettings;
  sessions: SessionBook;
  refusals: RefusalLog;
}): MiddlewareHandler {
  const { settings, sessions } = options;
  const metadataUrl = endpoints(settings).resourceMetadata;
  // Every scope this server offers: the MCP SDKs ask for exactly the challenge's scope, so naming
  // `t3:read` alone would keep the write box off every consent page (the person chooses there).
  const offered = settings.scopesSupported.join(" ");
  const challenge = (error?: string) =>
    `Bearer ${error === undefined ? "" : `error="${error}", `}resource_metadata="${metadataUrl}", scope="${offered}"`;
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

/**
 * After the host app read and parsed the `/mcp` body (once, with core's bounded reader): a
 * `tools/call` restarts the idle window of the session the guard let through. The guard itself
 * reads no body, so it never holds bytes for a caller it has not checked, and the body is parsed
 * only once (ADR 0056). A damaged state file answers 503 naming the file.
 */
export function touchOnToolCall(
  sessions: SessionBook,
): (c: Context, parsed: unknown) => Promise<Response | undefined> {
  return async (c, parsed) => {
    const access = grantedAccess.get(c);
    if (access === undefined || !callsATool(parsed)) return undefined;
    try {
      await sessions.touch(access.sessionId);
    } catch (error) {
      const damaged = damagedStateAnswer(error);
      if (damaged === undefined) throw error;
      return c.json(damaged, 503);
    }
    return undefined;
  };
}

/** Whether a parsed JSON-RPC message (or batch) holds a `tools/call`. */
function callsATool(parsed: unknown): boolean {
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages.some(
    (message) =>
      typeof message === "object" &&
      message !== null &&
      (message as { method?: unknown }).method === "tools/call",
  );
}
