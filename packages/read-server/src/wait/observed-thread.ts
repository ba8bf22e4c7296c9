import type { MessageInput, PendingRequestRef } from "@t3-connector/core/state";
import type { ThreadStreamItem } from "@t3-connector/core/t3";

/** What the wait needs of a run: which one, and where it is. */
export interface ObservedRun {
  id: string;
  status: string | null;
  ordinal: number | null;
}

interface ObservedRequest {
  id: string;
  kind: string | null;
  status: string | null;
  createdAt: string | null;
}

interface ObservedPlan {
  id: string;
  kind: string | null;
  runId: string | null;
  status: string | null;
}

type Row = Record<string, unknown>;

function asRow(value: unknown): (Row & { id: string }) | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const id = (value as Row).id;
  return typeof id === "string" ? (value as Row & { id: string }) : undefined;
}

function text(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function toRun(row: Row & { id: string }): ObservedRun {
  return {
    id: row.id,
    status: text(row.status),
    ordinal: typeof row.ordinal === "number" ? row.ordinal : null,
  };
}

function toRequest(row: Row & { id: string }): ObservedRequest {
  return { id: row.id, kind: text(row.kind), status: text(row.status), createdAt: text(row.createdAt) };
}

function toPlan(row: Row & { id: string }): ObservedPlan {
  return { id: row.id, kind: text(row.kind), runId: text(row.runId), status: text(row.status) };
}

function fill<T>(target: Map<string, T>, rows: unknown, convert: (row: Row & { id: string }) => T): void {
  target.clear();
  if (!Array.isArray(rows)) return;
  for (const value of rows) {
    const row = asRow(value);
    if (row) target.set(row.id, convert(row));
  }
}

/**
 * The part of a thread's projection the wait follows, kept up to date from `subscribeThread`: a
 * snapshot replaces everything (it is authoritative, also after a resume that fell back to one),
 * then each event updates the one entity it carries. Events the wait does not read are ignored;
 * payloads are read leniently so a newer server's shapes never fail the wait.
 */
export class ObservedThread {
  readonly #runs = new Map<string, ObservedRun>();
  readonly #requests = new Map<string, ObservedRequest>();
  readonly #messages = new Map<string, MessageInput & { id: string }>();
  readonly #plans = new Map<string, ObservedPlan>();
  #snapshotSeen = false;
  #deleted = false;

  /** True once a snapshot arrived: before that nothing here is known. */
  get snapshotSeen(): boolean {
    return this.#snapshotSeen;
  }

  get deleted(): boolean {
    return this.#deleted;
  }

  apply(item: ThreadStreamItem): void {
    if (item.kind === "snapshot") {
      const projection = item.projection as Row;
      fill(this.#runs, projection.runs, toRun);
      fill(this.#requests, projection.runtimeRequests, toRequest);
      fill(this.#messages, projection.messages, (row) => row as MessageInput & { id: string });
      fill(this.#plans, projection.plans, toPlan);
      this.#deleted = Boolean(item.projection.thread.deletedAt);
      this.#snapshotSeen = true;
      return;
    }
    if (item.kind !== "event") return;
    const { type, payload } = item.event;
    const row = asRow(payload);
    switch (type) {
      case "run.created":
      case "run.updated":
        if (row) this.#runs.set(row.id, toRun(row));
        return;
      case "runtime-request.updated":
        if (row) this.#requests.set(row.id, toRequest(row));
        return;
      case "message.updated":
        if (row) this.#messages.set(row.id, row as MessageInput & { id: string });
        return;
      case "plan.updated":
        if (row) this.#plans.set(row.id, toPlan(row));
        return;
      case "thread.deleted":
        this.#deleted = true;
        return;
      default:
        // Every other `thread.*` event carries the whole app thread; a deletion may ride on any.
        if (type.startsWith("thread.") && row && typeof row.deletedAt === "string") this.#deleted = true;
    }
  }

  run(runId: string): ObservedRun | undefined {
    return this.#runs.get(runId);
  }

  /** The run the thread is working on: the newest one that has not ended (by ordinal). */
  newestRun(filter: (run: ObservedRun) => boolean): ObservedRun | undefined {
    let best: ObservedRun | undefined;
    for (const run of this.#runs.values()) {
      if (!filter(run)) continue;
      if (best === undefined || (run.ordinal ?? -1) >= (best.ordinal ?? -1)) best = run;
    }
    return best;
  }

  /** Pending requests, oldest first, in the shape the state precedence takes (rule 1b). */
  pendingRequests(): PendingRequestRef[] {
    return [...this.#requests.values()]
      .filter((request) => request.status === "pending")
      .sort((a, b) => (a.createdAt ?? "").localeCompare(b.createdAt ?? ""))
      .map((request) => ({ runtimeRequestId: request.id, kind: request.kind, since: request.createdAt }));
  }

  /** Whether `runId` ended with a proposed plan still waiting for a decision. */
  hasActionablePlan(runId: string): boolean {
    for (const plan of this.#plans.values()) {
      if (plan.runId === runId && plan.kind === "proposed_plan" && plan.status === "active") return true;
    }
    return false;
  }

  messagesOf(runId: string): MessageInput[] {
    return [...this.#messages.values()].filter((message) => message.runId === runId);
  }
}
