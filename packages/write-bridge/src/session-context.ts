/**
 * The bridge context of a client that reaches the write tools through another server rather than
 * through a bridge process of its own: an OAuth session of `serve --http` (ADR 0049). It has its
 * own relay client (so the lease secrets the gate hands it stay with it) and its own asking id;
 * who the client is comes from the session the person allowed, not from the client's word. The
 * stateless HTTP transport cannot send the client a request, so the approval link is only ever
 * in the tool's result, never presented through URL elicitation.
 */
import { ConnectorError } from "@t3-connector/core";
import { systemTimers, type Timers } from "@t3-connector/core/t3";
import type { BridgeContext, ClientSide } from "./bridge-tool.js";
import type { RelayClient } from "./relay-client.js";

export interface SessionBridgeContextOptions {
  readonly relay: RelayClient;
  /** This session's asking id (8–128 characters): its newer request supersedes its older one. */
  readonly bridgeId: string;
  /** What the gate's page shows as the holder. */
  readonly client: NonNullable<ClientSide["info"]>;
  readonly now?: () => number;
  readonly timers?: Timers;
}

export function sessionBridgeContext(options: SessionBridgeContextOptions): BridgeContext {
  return {
    relay: options.relay,
    now: options.now ?? Date.now,
    timers: options.timers ?? systemTimers,
    bridgeId: options.bridgeId,
    client: () => ({ info: options.client, urlElicitation: false }),
    elicitUrl: () =>
      Promise.reject(new ConnectorError("invalid_request", "this transport cannot present a link")),
    elicitationComplete: () => Promise.resolve(),
  };
}
