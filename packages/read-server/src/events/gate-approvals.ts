/**
 * The gate's approval feed for the events service (ADR 0051), found through the write config as
 * `serve` finds the gate (`T3_CONNECTOR_WRITE_CONFIG`, or its default path): a long poll over the
 * same relay a bridge uses. Without a write config there are no approval events, and the service
 * says so once.
 */
import type { CliIo } from "@t3-connector/core/cli-support";
import type { ApprovalFeedEntry, ApprovalSource } from "@t3-connector/events";
import { createRelayClient } from "@t3-connector/write-bridge";
import { lookUpGate } from "../http/url-writes.js";

/** How long one poll waits at the gate for an entry; the relay's own deadline is past it. */
const POLL_WAIT_MS = 25_000;
const POLL_DEADLINE_MS = POLL_WAIT_MS + 10_000;

export async function gateApprovalSource(
  io: CliIo,
  log: (line: string) => void,
): Promise<ApprovalSource | undefined> {
  const gate = await lookUpGate(io);
  if (gate.kind === "absent") {
    log(`events: no write config at ${gate.path}, so no approval events`);
    return undefined;
  }
  const relay = createRelayClient({ port: gate.config.port, stateDir: gate.config.stateDir });
  log(`events: approval events from the gate on port ${gate.config.port} (write config ${gate.config.path})`);
  return {
    inboxOrigin: gate.config.remoteApproval?.origin ?? `http://localhost:${gate.config.port}`,
    async read(after, signal) {
      const answer = await relay.call({ op: "approval_events", after, waitMs: POLL_WAIT_MS }, signal, {
        timeoutMs: POLL_DEADLINE_MS,
      });
      return { entries: answer.entries as unknown as ApprovalFeedEntry[], cursor: answer.cursor };
    },
  };
}
