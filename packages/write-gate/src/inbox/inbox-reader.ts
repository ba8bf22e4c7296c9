/**
 * @module What waits on the person, read fresh from every environment (ADR 0073): each thread the
 * shell says waits on a runtime or secret request is read by id (its bounded window), and its
 * items are built by core's one inbox model, so ops and the gate list the same items under the
 * same ids. A client's pending lease request comes from the desk. An environment that does not
 * answer in time is named, never silently dropped.
 */
import type { Clock } from "@t3-connector/core";
import { type EnvironmentRegistry, environmentInboxItems } from "@t3-connector/core/environments";
import { type FanOutDeadlines, realDeadlines } from "@t3-connector/core/fanout";
import { type InboxItem, leaseItemId, sortInbox } from "@t3-connector/core/state";
import { REQUEST_TTL_MS } from "../approval/approval-desk.js";
import type { GateApprovalDesk } from "../approval/index.js";

/** Each environment gets this long to answer its shell and its waiting threads. */
export const INBOX_READ_TIMEOUT_MS = 15_000;

export interface InboxListing {
  readonly items: readonly InboxItem[];
  /** Environments that did not answer: their items are unknown, not absent. */
  readonly unavailable: ReadonlyArray<{ readonly alias: string; readonly reason: string }>;
  readonly readAt: string;
}

export interface InboxReaderOptions {
  readonly registry: EnvironmentRegistry;
  readonly desk: Pick<GateApprovalDesk, "pendingRequests" | "approvalUrl">;
  readonly clock: Clock;
  readonly deadlines?: FanOutDeadlines;
  readonly timeoutMs?: number;
}

export type InboxReader = (signal?: AbortSignal) => Promise<InboxListing>;

/** The clients' pending lease requests as inbox items: decided on their approval page. */
export function leaseRequestItems(desk: InboxReaderOptions["desk"], now: number): InboxItem[] {
  return desk.pendingRequests().map((row) => {
    const since = new Date(Date.parse(row.expiresAt) - REQUEST_TTL_MS).toISOString();
    return {
      itemId: leaseItemId(row.requestId),
      kind: "lease" as const,
      environment: { alias: "", environmentId: "", machine: "this gate" },
      project: { id: null, title: null },
      thread: null,
      directory: null,
      provider: null,
      model: null,
      runtimeMode: null,
      fullAccess: false,
      since,
      waitedMs: Math.max(0, now - Date.parse(since)),
      lastMessage: null,
      changeSummary: null,
      request: {
        type: "lease" as const,
        requestId: row.requestId,
        client: row.client?.name ?? null,
        purpose: row.purpose ?? null,
        approvalUrl: desk.approvalUrl(row.requestId),
      },
    };
  });
}

export function inboxReader(options: InboxReaderOptions): InboxReader {
  const timeoutMs = options.timeoutMs ?? INBOX_READ_TIMEOUT_MS;
  const deadlines = options.deadlines ?? realDeadlines;
  return async (signal) => {
    const now = options.clock.now();
    const unavailable: { alias: string; reason: string }[] = [];
    const perEnvironment = await Promise.all(
      options.registry.environments.map(async (handle) => {
        const expired = new DOMException(`no inbox read within ${timeoutMs} ms`, "TimeoutError");
        const deadline = deadlines.start(timeoutMs, expired, { alias: handle.alias });
        const both = signal === undefined ? deadline.signal : AbortSignal.any([signal, deadline.signal]);
        try {
          const connected = await handle.connect({ signal: both });
          return await environmentInboxItems(connected, now, both);
        } catch {
          unavailable.push({
            alias: handle.alias,
            reason: deadline.signal.aborted ? "timeout" : "environment_unavailable",
          });
          return [];
        } finally {
          deadline.clear();
        }
      }),
    );
    const items = sortInbox([...perEnvironment.flat(), ...leaseRequestItems(options.desk, now)]);
    return { items, unavailable, readAt: new Date(now).toISOString() };
  };
}
