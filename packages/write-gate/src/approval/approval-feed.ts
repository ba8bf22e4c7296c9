/**
 * @module What the person's phone is told (ADR 0051): each approval request as it is made, and its
 * decision, in a short in-memory feed the events service reads through the relay
 * (`approval_events`, a long poll from a cursor). Each entry carries what a push needs to be
 * useful: the client's words (its name, session and purpose), what approving grants, and the
 * approval link. Nothing secret: no holder secret, no challenge. A restarted gate starts an empty
 * feed; the entries' ids are stable per request and kind, so a receiver dedupes a repeat. A read
 * leaves out the `approval.requested` of a request no longer open (decided, expired, withdrawn or
 * superseded): a follower that starts late must not push "asks to write" for a link that would
 * only say `request_used` (ADR 0070).
 */
import { type Clock, ConnectorError } from "@t3-connector/core";
import type { GateEvents } from "../events/gate-events.js";
import type { GateApprovalDesk } from "./approval-desk.js";
import type { ClientInfo } from "./proposal.js";

/** Entries kept; a reader further behind gets the oldest kept and a `missed` count. */
const FEED_LENGTH = 256;
/** Requests whose summary is kept for their decision event. */
const SUMMARIES_KEPT = 256;

export interface ApprovalGrantSummary {
  readonly environment: string;
  readonly environmentId: string;
  readonly projects: readonly string[];
  readonly actions: readonly string[];
}

export interface ApprovalRequestSummary {
  readonly requestId: string;
  readonly client?: ClientInfo;
  /** The client's own words, cleaned (untrusted). */
  readonly purpose?: string;
  readonly grants: readonly ApprovalGrantSummary[];
  readonly runtimeCeiling: string;
  readonly scopeFingerprint: string;
  readonly expiresAt: string;
  readonly approvalUrl: string;
}

export interface ApprovalFeedEntry {
  readonly seq: number;
  readonly type: "approval.requested" | "approval.decided";
  readonly at: string;
  readonly request: ApprovalRequestSummary;
  /** `approval.decided` only: approved, denied or expired. */
  readonly decision?: string;
}

export class ApprovalFeed {
  readonly #entries: ApprovalFeedEntry[] = [];
  readonly #summaries = new Map<string, ApprovalRequestSummary>();
  readonly #waiters = new Set<() => void>();
  readonly #clock: Clock;
  readonly #desk: GateApprovalDesk;
  #seq = 0;

  constructor(events: GateEvents, desk: GateApprovalDesk, clock: Clock) {
    this.#clock = clock;
    this.#desk = desk;
    events.subscribe((event) => {
      if (event.type === "request") this.#requested(desk, event.data.requestId);
      else if (event.type === "decision") this.#decided(event.data.requestId, event.data.outcome);
    });
  }

  /**
   * The entries after `after` (a seq; 0 for all kept), waiting up to `waitMs` for one when there
   * is none yet. `cursor` is what to pass next time.
   */
  async read(
    after: number,
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<{ entries: ApprovalFeedEntry[]; cursor: number }> {
    if (after > this.#seq)
      throw new ConnectorError("invalid_request", "the cursor is ahead of the feed (the gate restarted?)");
    if (waitMs > 0 && this.#seq === after) await this.#next(waitMs, signal);
    const entries = this.#entries.filter((entry) => entry.seq > after && this.#stillNews(entry));
    return { entries, cursor: this.#seq };
  }

  /** A request's `approval.requested` is news only while the request is open. */
  #stillNews(entry: ApprovalFeedEntry): boolean {
    return entry.type !== "approval.requested" || this.#desk.link(entry.request.requestId) !== null;
  }

  #next(waitMs: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      // A poll never holds the process open: the gate's own server does while it runs.
      const timer = setTimeout(done, waitMs);
      timer.unref();
      this.#waiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  #requested(desk: GateApprovalDesk, requestId: string): void {
    let summary: ApprovalRequestSummary;
    try {
      summary = summaryOf(desk, requestId);
    } catch {
      return; // already gone (superseded at once): nothing to tell
    }
    this.#summaries.set(requestId, summary);
    if (this.#summaries.size > SUMMARIES_KEPT)
      this.#summaries.delete(this.#summaries.keys().next().value as string);
    this.#push({ type: "approval.requested", request: summary });
  }

  #decided(requestId: string, outcome: string): void {
    const summary = this.#summaries.get(requestId);
    if (summary === undefined) return;
    this.#summaries.delete(requestId);
    this.#push({ type: "approval.decided", request: summary, decision: outcome });
  }

  #push(entry: Omit<ApprovalFeedEntry, "seq" | "at">): void {
    this.#seq += 1;
    this.#entries.push({ ...entry, seq: this.#seq, at: new Date(this.#clock.now()).toISOString() });
    if (this.#entries.length > FEED_LENGTH) this.#entries.shift();
    for (const wake of [...this.#waiters]) wake();
  }
}

/** What approving would grant, as the page ticks it: the client's proposal within the inventory. */
function summaryOf(desk: GateApprovalDesk, requestId: string): ApprovalRequestSummary {
  const view = desk.view(requestId);
  const grants = view.preselected.environments.map((chosen) => {
    const grant = view.scope.environments.find(
      (candidate) => candidate.environmentId === chosen.environmentId,
    );
    const names = new Map((grant?.projects ?? []).map((project) => [project.id, project.name || project.id]));
    return {
      environment: grant?.alias ?? chosen.environmentId,
      environmentId: chosen.environmentId,
      projects: chosen.projectIds.map((id) => names.get(id) ?? id),
      actions: [...chosen.actions],
    };
  });
  return {
    requestId,
    ...(view.client === undefined ? {} : { client: view.client }),
    ...(view.purpose === undefined ? {} : { purpose: view.purpose }),
    grants,
    runtimeCeiling: view.scope.runtimeMode,
    scopeFingerprint: view.scopeFingerprint,
    expiresAt: view.expiresAt,
    approvalUrl: desk.approvalUrl(requestId),
  };
}
