/**
 * What one `/mcp` request's server adds to the read tools, from the OAuth session behind it: the
 * write tools and the bridge's instructions with `t3:write`, the refusal of writes without it
 * (ADR 0049). Without writes served, nothing.
 */
import { accessOfRequest } from "@t3-connector/oauth";
import { BRIDGE_INSTRUCTIONS } from "@t3-connector/write-bridge";
import type { Context } from "hono";
import type { RegisterReadToolsOptions } from "../register-read-tools.js";
import { READ_SERVER_INSTRUCTIONS } from "../server.js";
import type { UrlWrites } from "./url-writes.js";

/** Said instead of "this server never writes" to a session that may. */
export const WRITE_SESSION_INSTRUCTIONS = `${READ_SERVER_INSTRUCTIONS.replace(
  "This server never writes: nextAction names the write tool (t3-connector-write bridge)",
  "This session may also write: nextAction names the write tool, served here too,",
)} ${BRIDGE_INSTRUCTIONS}`;

export function serverPartsFor(
  writes: UrlWrites | undefined,
  c: Context,
): Pick<RegisterReadToolsOptions, "alongside"> & { instructions?: string } {
  if (writes === undefined) return {};
  const group = writes.groupFor(accessOfRequest(c));
  const listsWrites = group.list().length > 0;
  return { alongside: [group], ...(listsWrites ? { instructions: WRITE_SESSION_INSTRUCTIONS } : {}) };
}
