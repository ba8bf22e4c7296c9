/**
 * What one `/mcp` request's server adds to the read tools, from the OAuth session behind it: the
 * write tools and the bridge's instructions with `t3:write`, the refusal of writes without it
 * (ADR 0049). Without writes served, nothing.
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import { accessOfRequest, type VerifiedAccess } from "@t3-connector/oauth";
import { BRIDGE_INSTRUCTIONS } from "@t3-connector/write-bridge";
import type { Context } from "hono";
import { approvalOriginOf } from "../board/board-facts.js";
import type { RegisterReadToolsOptions } from "../register-read-tools.js";
import { READ_SERVER_INSTRUCTIONS } from "../server.js";
import type { UrlWrites } from "./url-writes.js";

/** Said instead of "this server never writes" to a session that may. */
export const WRITE_SESSION_INSTRUCTIONS = `${READ_SERVER_INSTRUCTIONS.replace(
  "This server never writes: nextAction names the write tool (t3-connector-write bridge)",
  "This session may also write: nextAction names the write tool, served here too,",
)} ${BRIDGE_INSTRUCTIONS}`;

/**
 * The OAuth session the guard let a `/mcp` request through with, as the `authInfo` both eras'
 * handlers hand to the server factory. The token itself stays with the guard: nothing past it
 * needs it.
 */
export function sessionAuthInfo(c: Context): AuthInfo | undefined {
  const access = accessOfRequest(c);
  if (access === undefined) return undefined;
  return {
    token: "",
    clientId: access.clientId,
    scopes: [...access.scope],
    expiresAt: Math.floor(access.expiresAt / 1000),
    extra: { access },
  };
}

function accessOf(authInfo: AuthInfo | undefined): VerifiedAccess | undefined {
  return authInfo?.extra?.access as VerifiedAccess | undefined;
}

export function serverPartsFor(
  writes: UrlWrites | undefined,
  authInfo: AuthInfo | undefined,
): Pick<RegisterReadToolsOptions, "alongside" | "approvalOrigin" | "inboxOrigin"> & {
  instructions?: string;
} {
  if (writes === undefined) return {};
  // The inbox from afar answers on the issuer origin only; its localhost page is not for a host to open.
  const remote = writes.config.remoteApproval?.origin;
  const inbox = remote === undefined ? {} : { inboxOrigin: remote };
  const group = writes.groupFor(accessOf(authInfo));
  const listsWrites = group.list().length > 0;
  const writeParts = {
    instructions: WRITE_SESSION_INSTRUCTIONS,
    approvalOrigin: approvalOriginOf(writes.config),
  };
  return { alongside: [group], ...inbox, ...(listsWrites ? writeParts : {}) };
}
