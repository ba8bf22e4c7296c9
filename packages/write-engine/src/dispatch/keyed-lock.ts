/**
 * In-process serialisation by key. The journal's reserve is already an atomic insert-if-absent;
 * this lock adds that concurrent duplicates of one operation run one after another, so the later
 * ones see the first one's final record (and replay it) instead of a `preparing` record that is
 * still in flight. It also serialises project-scoped writes (launch, fork) per project set.
 */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<void>>();

  /** Whether some task currently holds or waits for `key`. */
  isHeld(key: string): boolean {
    return this.#tails.has(key);
  }

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => current);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
