/**
 * Approval events (ADR 0051): follows the gate's approval feed through the host's source (a long
 * poll from a cursor) and puts each entry into the outbox as `approval.requested` or
 * `approval.decided`, signed and delivered like the thread events. The id is derived from the
 * request and the kind, so an entry read twice (after a restart of this process) is sent once. A
 * gate that is down is asked again after `retryDelayMs`; one that restarted (its feed is new) is
 * read again from its start.
 */

import type { Clock } from "@t3-connector/core";
import { leaseItemId } from "@t3-connector/core/state";
import type { TimerHandle, Timers } from "@t3-connector/core/t3";
import { eventId } from "./event-id.js";
import type { ApprovalWebhookEvent, EventType } from "./event-types.js";
import type { Outbox } from "./outbox.js";

/** One entry of the gate's feed, as the relay answers it. */
export interface ApprovalFeedEntry {
  readonly seq: number;
  readonly type: "approval.requested" | "approval.decided";
  readonly at: string;
  readonly request: {
    readonly requestId: string;
    readonly approvalUrl: string;
    readonly client?: { name: string; version?: string; signedInAt?: string };
    readonly purpose?: string;
    readonly grants?: ReadonlyArray<{
      environment: string;
      environmentId: string;
      projects: string[];
      actions: string[];
    }>;
    readonly runtimeCeiling?: string;
    readonly scopeFingerprint?: string;
    readonly expiresAt?: string;
  };
  readonly decision?: string;
}

/** Where the service reads the gate's approval feed (the host builds it from the write config). */
export interface ApprovalSource {
  /** Entries after `after`, waiting a while for one; rejects when the gate cannot be asked. */
  read(
    after: number,
    signal: AbortSignal,
  ): Promise<{ entries: readonly ApprovalFeedEntry[]; cursor: number }>;
  /** The origin the person's inbox answers at (the gate's public one, else its localhost page). */
  readonly inboxOrigin?: string;
}

export interface ApprovalFollowerDeps {
  readonly outbox: Outbox;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly log: (line: string) => void;
  readonly wake: () => void;
  /** `--type`: absent lets both kinds through. */
  readonly types?: readonly EventType[];
  readonly retryDelayMs?: number;
}

/** Starts following; `stop` ends the poll in flight and resolves once the loop is done. */
export function followApprovals(
  source: ApprovalSource,
  deps: ApprovalFollowerDeps,
): { stop(): Promise<void> } {
  const abort = new AbortController();
  let retry: TimerHandle | undefined;
  let wakeRetry: () => void = () => undefined;
  const pause = () =>
    new Promise<void>((resolve) => {
      wakeRetry = resolve;
      retry = deps.timers.setTimeout(resolve, deps.retryDelayMs ?? 2_000);
    });
  const loop = (async () => {
    let cursor = 0;
    let failing = false;
    while (!abort.signal.aborted) {
      try {
        const read = await source.read(cursor, abort.signal);
        for (const entry of read.entries) await enqueue(entry, deps);
        cursor = read.cursor;
        if (failing) deps.log("events: the gate's approval feed answers again");
        failing = false;
      } catch (error) {
        if (abort.signal.aborted) break;
        // A restarted gate's feed starts over: its cursor is behind ours.
        if ((error as { code?: unknown }).code === "invalid_request") cursor = 0;
        if (!failing)
          deps.log(`events: the gate's approval feed does not answer: ${(error as Error).message}`);
        failing = true;
        await pause();
      }
    }
  })();
  return {
    async stop() {
      abort.abort();
      retry?.cancel();
      wakeRetry();
      await loop;
    },
  };
}

async function enqueue(entry: ApprovalFeedEntry, deps: ApprovalFollowerDeps): Promise<void> {
  if (deps.types !== undefined && !deps.types.includes(entry.type)) return;
  const event = approvalEvent(entry, new Date(deps.clock.now()).toISOString());
  const written = deps.outbox.add(event, event.timestamp);
  if (written === undefined) return; // already held
  deps.wake();
  await written;
}

export function approvalEvent(entry: ApprovalFeedEntry, detectedAt: string): ApprovalWebhookEvent {
  const { request } = entry;
  return {
    id: eventId({
      environmentId: "t3-connector-gate",
      threadId: request.requestId,
      runId: null,
      transition: entry.type,
    }),
    type: entry.type,
    timestamp: detectedAt,
    data: {
      request: {
        id: request.requestId,
        approvalUrl: request.approvalUrl,
        inboxUrl: `${new URL(request.approvalUrl).origin}/inbox#${leaseItemId(request.requestId)}`,
        expiresAt: request.expiresAt ?? null,
        scopeFingerprint: request.scopeFingerprint ?? null,
        runtimeCeiling: request.runtimeCeiling ?? null,
      },
      client: request.client ?? null,
      purpose: request.purpose ?? null,
      grants: (request.grants ?? []).map((grant) => ({
        ...grant,
        projects: [...grant.projects],
        actions: [...grant.actions],
      })),
      ...(entry.decision === undefined ? {} : { decision: entry.decision }),
      occurredAt: entry.at,
      detectedAt,
    },
  };
}
