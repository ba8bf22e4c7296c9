/**
 * @module The holders whose requests were withdrawn (`withdraw_requests`: the OAuth session that
 * held the secret ended, ADR 0049), by the hash of their secret. A request that secret was still
 * building when the withdrawal landed (its inventory running) is refused when it would be kept,
 * so no request outlives the session that asked. The secret is dropped with its session and never
 * presented again by an honest caller, so refusing it for good costs nothing. Bounded: the oldest
 * entries fall off first; a request is built within the inventory's deadline (15 s), so an entry
 * only needs to outlive that, and thousands of sessions ending inside one deadline are not a case.
 */
export const MAX_WITHDRAWN_HOLDERS = 4096;

export class WithdrawnHolders {
  readonly #hashes = new Set<string>();

  constructor(private readonly max = MAX_WITHDRAWN_HOLDERS) {}

  add(holderHash: string): void {
    this.#hashes.delete(holderHash);
    this.#hashes.add(holderHash);
    while (this.#hashes.size > this.max) {
      const oldest = this.#hashes.values().next();
      if (oldest.done === true) break;
      this.#hashes.delete(oldest.value);
    }
  }

  has(holderHash: string): boolean {
    return this.#hashes.has(holderHash);
  }
}
