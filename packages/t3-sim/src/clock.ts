/**
 * The simulator's clock. In `real` mode time follows the wall clock and timers are real; in
 * `manual` mode time only moves when a test calls `advance`, and timers due by then fire in order.
 * Both the model (run engine, snooze, woke marker) and the transport (token and ticket expiry)
 * read time from here, so a test can move an environment's time without sleeping.
 */
export interface SimTimer {
  cancel(): void;
}

interface Scheduled {
  readonly id: number;
  readonly dueAt: number;
  readonly callback: () => void;
  realHandle?: ReturnType<typeof setTimeout>;
}

export class SimClock {
  #mode: "real" | "manual";
  #offsetMs = 0;
  #manualNow: number;
  #nextId = 1;
  readonly #pending = new Map<number, Scheduled>();

  constructor(options: { mode?: "real" | "manual"; startAt?: number } = {}) {
    this.#mode = options.mode ?? "real";
    this.#manualNow = options.startAt ?? Date.now();
  }

  get mode(): "real" | "manual" {
    return this.#mode;
  }

  /** Milliseconds since the epoch, in simulated time. */
  now(): number {
    return this.#mode === "manual" ? this.#manualNow : Date.now() + this.#offsetMs;
  }

  isoNow(): string {
    return new Date(this.now()).toISOString();
  }

  /** Runs `callback` after `delayMs` of simulated time. */
  setTimer(delayMs: number, callback: () => void): SimTimer {
    const entry: Scheduled = { id: this.#nextId++, dueAt: this.now() + Math.max(0, delayMs), callback };
    this.#pending.set(entry.id, entry);
    if (this.#mode === "real") this.#arm(entry);
    return { cancel: () => this.#cancel(entry.id) };
  }

  /**
   * Moves time forward. In manual mode every timer due by the new time fires, in due order; in
   * real mode the wall-clock offset grows and timers are re-armed against it.
   */
  advance(ms: number): void {
    if (ms < 0) throw new RangeError("time only moves forward");
    if (this.#mode === "manual") {
      const target = this.#manualNow + ms;
      for (;;) {
        const next = [...this.#pending.values()]
          .filter((t) => t.dueAt <= target)
          .sort((a, b) => a.dueAt - b.dueAt || a.id - b.id)[0];
        if (!next) break;
        this.#pending.delete(next.id);
        this.#manualNow = Math.max(this.#manualNow, next.dueAt);
        next.callback();
      }
      this.#manualNow = target;
      return;
    }
    this.#offsetMs += ms;
    for (const entry of this.#pending.values()) {
      if (entry.realHandle) clearTimeout(entry.realHandle);
      this.#arm(entry);
    }
  }

  /** Cancels every pending timer (used when a simulator stops). */
  dispose(): void {
    for (const entry of this.#pending.values()) if (entry.realHandle) clearTimeout(entry.realHandle);
    this.#pending.clear();
  }

  #arm(entry: Scheduled): void {
    const delay = Math.max(0, entry.dueAt - this.now());
    entry.realHandle = setTimeout(() => {
      this.#pending.delete(entry.id);
      entry.callback();
    }, delay);
    entry.realHandle.unref?.();
  }

  #cancel(id: number): void {
    const entry = this.#pending.get(id);
    if (entry?.realHandle) clearTimeout(entry.realHandle);
    this.#pending.delete(id);
  }
}
