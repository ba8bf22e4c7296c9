/**
 * The bridge context of a client that reaches the write tools through another server rather than
 * through a bridge process of its own: an OAuth session of `serve --http` (ADR 0049). It has its
 * own relay client (so the holder secret the gate knows this session by stays with it) and its own
 * asking id; who the client is comes from the session the person allowed, not from the client's
 * word. The stateless HTTP transport cannot send a 2025 client a request, so such a client gets the
 * approval link in the tool's result; a 2026-07-28 client is asked through its input round.
 */
import { ConnectorError } from "@t3-connector/core";
import { systemTimers, type Timers } from "@t3-connector/core/t3";
import type { BridgeContext, ClientHolder } from "./bridge-tool.js";
import type { RelayClient } from "./relay-client.js";

export interface SessionBridgeContextOptions {
  readonly relay: RelayClient;
  /** This session's asking id (8–128 characters): its newer request supersedes its older one. */
  readonly bridgeId: string;
  /** What the gate's page shows as the holder. */
  readonly client: ClientHolder;
  readonly now?: () => number;
  readonly timers?: Timers;
}

export function sessionBridgeContext(options: SessionBridgeContextOptions): BridgeContext {
  return {
    relay: options.relay,
    now: options.now ?? Date.now,
    timers: options.timers ?? systemTimers,
    bridgeId: options.bridgeId,
    holder: options.client,
    elicitsFromLegacyClients: false,
    elicitUrl: () =>
      Promise.reject(new ConnectorError("invalid_request", "this transport cannot present a link")),
    elicitationComplete: () => Promise.resolve(),
  };
}
