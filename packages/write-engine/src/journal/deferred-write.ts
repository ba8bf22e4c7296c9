/**
 * A change that may wait for company before it is written (ADR 0066). Its promise resolves when a
 * write started after the change lands: the journal's next write for any other reason carries it
 * (each write serialises the whole active segment when it starts), or, when none comes within
 * `delayMs`, a write of its own. Whoever needs it on disk sooner — a reader of the key, a list, a
 * stamp, a close — calls `flush()` and it starts at once.
 */
export class DeferredWrite {
  readonly #start: () => Promise<void>;
  readonly #delayMs: number;
  #waiting: Waiting | null = null;

  constructor(start: () => Promise<void>, delayMs: number) {
    this.#start = start;
    this.#delayMs = delayMs;
  }

  /** Resolves (or rejects) with the write that carries every change made before this call. */
  join(): Promise<void> {
    if (this.#waiting !== null) return this.#waiting.promise;
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const timer = setTimeout(() => this.flush(), this.#delayMs);
    this.#waiting = { promise, resolve, reject, timer };
    return promise;
  }

  /** Starts the waiting write now; nothing when none waits. */
  flush(): void {
    const waiting = this.#take();
    if (waiting !== null) this.#start().then(waiting.resolve, waiting.reject);
  }

  /** `write` was started after every waiting change was made: the waiting changes land with it. */
  carriedBy(write: Promise<void>): void {
    const waiting = this.#take();
    if (waiting !== null) write.then(waiting.resolve, waiting.reject);
  }

  #take(): Waiting | null {
    const waiting = this.#waiting;
    if (waiting === null) return null;
    this.#waiting = null;
    clearTimeout(waiting.timer);
    return waiting;
  }
}

interface Waiting {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}
