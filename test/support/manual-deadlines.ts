import type { Deadline, DeadlineScope, FanOutDeadlines } from "@t3-connector/core/fanout";

interface Armed {
  readonly ms: number;
  readonly alias: string | undefined;
  readonly controller: AbortController;
  readonly reason: unknown;
}

/**
 * Deadlines that expire only when a test says so. A test stalls an environment, waits until the
 * environment has held the request, then expires that environment's deadline: the read times out
 * at once and deterministically, and a healthy environment's deadline never fires by accident on
 * a loaded machine. The `ms` a read asks for never runs out; a test may check it when it expires
 * a call's deadline.
 */
export class ManualDeadlines implements FanOutDeadlines {
  readonly #armed = new Set<Armed>();
  readonly #onStart = new Set<(alias: string | undefined) => void>();

  start(ms: number, reason: unknown, scope: DeadlineScope): Deadline {
    const armed: Armed = { ms, alias: scope.alias, controller: new AbortController(), reason };
    this.#armed.add(armed);
    for (const listener of [...this.#onStart]) listener(scope.alias);
    return { signal: armed.controller.signal, clear: () => this.#armed.delete(armed) };
  }

  /** Resolves once a deadline of `alias` (no alias: of a whole call) runs, at once if one does. */
  started(alias?: string): Promise<void> {
    if (this.running(alias) > 0) return Promise.resolve();
    return new Promise((resolve) => {
      const listener = (started: string | undefined) => {
        if (started !== alias) return;
        this.#onStart.delete(listener);
        resolve();
      };
      this.#onStart.add(listener);
    });
  }

  /**
   * Runs `call` and expires the deadline of the stalled environment `alias` as soon as one runs
   * (and `seen` has resolved, e.g. the environment has held the request): the environment times
   * out at once instead of after real time. Its requests must be held (the simulator's `hang`
   * fault), or the test proves nothing.
   */
  async timingOut<T>(
    alias: string,
    call: () => Promise<T>,
    seen: Promise<unknown> = Promise.resolve(),
  ): Promise<T> {
    const answer = call();
    await Promise.all([seen, this.started(alias)]);
    this.expire(alias);
    return await answer;
  }

  /** How many deadlines of `alias` (or, with no alias, of whole calls) are running now. */
  running(alias?: string): number {
    return [...this.#armed].filter((armed) => armed.alias === alias).length;
  }

  /**
   * Expires every running deadline of the environment `alias`. Throws when none runs: a test
   * that expires nothing would prove nothing.
   */
  expire(alias: string): void {
    this.#expireWhere(alias, `no deadline of "${alias}" is running`);
  }

  /**
   * Expires every running deadline of a whole call, or with `ms` only those the call asked to
   * last `ms` (e.g. a wait's `timeoutMs`). Throws when none runs.
   */
  expireCall(ms?: number): void {
    const of = ms === undefined ? "" : ` of ${ms} ms`;
    this.#expireWhere(undefined, `no call deadline${of} is running`, ms);
  }

  #expireWhere(alias: string | undefined, nothing: string, ms?: number): void {
    const due = [...this.#armed].filter(
      (armed) => armed.alias === alias && (ms === undefined || armed.ms === ms),
    );
    if (due.length === 0) throw new Error(nothing);
    for (const armed of due) {
      this.#armed.delete(armed);
      armed.controller.abort(armed.reason);
    }
  }
}
