/**
 * The lease's part of every write, decided in one place from the facts the gate hands in (ADR
 * 0063): open or not (its `ended` signal, its two deadlines on the engine's clock, a lost send
 * under it), then its scope (`scopeVerdict`). Nothing here calls the gate; what the gate must do
 * afterwards (end the lease after a lost send, admit a launched thread) travels in the outcome.
 */
import type { Clock } from "@t3-connector/core";
import { scopeVerdict } from "./scope-verdict.js";
import type { LeaseFacts, LeaseRequest, LeaseVerdict } from "./types.js";

const CLOSED: LeaseVerdict = Object.freeze({
  ok: false,
  code: "lease_closed",
  message: "no open lease with this id",
});

export class LeaseRule {
  readonly #clock: Clock;
  /**
   * Leases under which a send's answer was lost, by their `ended` signal (one per granted lease, so
   * a lease granted later never inherits it): nothing more is sent under them (ADR 0022 §4). Weak:
   * the gate ends such a lease as soon as it reads the outcome, and drops it.
   */
  readonly #lostSend = new WeakSet<AbortSignal>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * The verdict for one stage. Synchronous on purpose: at `send` the one outbound frame follows it
   * with no `await` in between, so a lease that ended while the write waited (on the fresh reads,
   * the journal's fsyncs) sends nothing.
   */
  verdict(facts: LeaseFacts | null, leaseId: string, request: LeaseRequest): LeaseVerdict {
    if (!this.isOpen(facts, leaseId)) return CLOSED;
    return scopeVerdict(facts.scope, request, facts.launched);
  }

  /** Whether `facts` are those of the open lease `leaseId` now. */
  isOpen(facts: LeaseFacts | null, leaseId: string): facts is LeaseFacts {
    if (facts === null || facts.leaseId !== leaseId || facts.ended.aborted) return false;
    if (this.#lostSend.has(facts.ended)) return false;
    return this.#clock.monotonic() < facts.deadline.monotonic && this.#clock.now() < facts.deadline.wall;
  }

  /**
   * A send under this lease may have reached T3 without an answer: the lease sends nothing more,
   * from this instant, before its outcome is even recorded; the outcome tells the gate to end it.
   */
  endAfterLostSend(facts: LeaseFacts | null): void {
    if (facts !== null) this.#lostSend.add(facts.ended);
  }
}
