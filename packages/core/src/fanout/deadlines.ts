/** Whose deadline it is: one environment's (by alias), or the whole call's when `alias` is absent. */
export interface DeadlineScope {
  readonly alias?: string;
}

/** A started deadline: `signal` aborts with the given reason when it expires; `clear` disarms it. */
export interface Deadline {
  readonly signal: AbortSignal;
  clear(): void;
}

/**
 * Where the deadlines of a read come from. Production uses real timers (`realDeadlines`); a test
 * injects a source it expires on demand, so a stalled environment's deadline fires the moment the
 * test has seen the request held instead of after real time that a loaded machine stretches.
 */
export interface FanOutDeadlines {
  /** Starts a deadline of `ms` milliseconds whose signal aborts with `reason`. */
  start(ms: number, reason: unknown, scope: DeadlineScope): Deadline;
}

/** Real timers: each deadline is one `setTimeout`, cleared when the work ends first. */
export const realDeadlines: FanOutDeadlines = Object.freeze({
  start(ms: number, reason: unknown): Deadline {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(reason), ms);
    return { signal: controller.signal, clear: () => clearTimeout(timer) };
  },
});
