/**
 * @module The client `serve --http` names when it forwards the approval page from afar (ADR 0044):
 * the address it saw, or the one a proxy it was told to trust reported. Believed only beside this
 * boot's relay capability, which only a process of the gate's user can read: a browser or a local
 * process that writes the header itself is counted by its own socket, as every request was before.
 */
import { isIP } from "node:net";
import {
  budgetKeyOf,
  FORWARD_CAPABILITY_HEADER,
  FORWARDED_CLIENT_HEADER,
} from "@t3-connector/core/http-edge";
import type { Context } from "hono";
import { capabilityMatches } from "../relay/capability.js";

/** The budget key of the client `serve` vouches for, or undefined (count the socket). */
export function vouchedClient(c: Context, relayCapability: string | undefined): string | undefined {
  if (relayCapability === undefined) return undefined;
  if (!capabilityMatches(relayCapability, c.req.header(FORWARD_CAPABILITY_HEADER))) return undefined;
  const address = c.req.header(FORWARDED_CLIENT_HEADER);
  // Its own space: a forwarded client never shares a bucket with a local process's socket. An
  // IPv6 client counts by its /64, as the OAuth profile's budgets count it (ADR 0044).
  return address !== undefined && isIP(address) !== 0 ? `via-serve ${budgetKeyOf(address)}` : undefined;
}

/**
 * The key a per-client table (tickets, ceremonies, view sessions; ADR 0073) files a request under:
 * the client `serve` vouches for, else the socket's own address. Never a header a browser or a
 * local process could write on its own.
 */
export function clientKey(c: Context, relayCapability: string | undefined): string {
  const vouched = vouchedClient(c, relayCapability);
  if (vouched !== undefined) return vouched;
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return `socket ${env?.incoming?.socket?.remoteAddress ?? "local"}`;
}
