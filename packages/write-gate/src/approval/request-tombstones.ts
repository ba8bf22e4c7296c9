/**
 * @module What became of recent approval requests, so a dead link says why: a
 * reload after approving says "used", an old link "expired", never the same "invalid" as an id
 * that was never issued. Bounded: the oldest entries fall off first.
 */
export type DeadRequestCode =
  | "request_expired"
  | "request_used"
  | "request_denied"
  | "request_superseded"
  | "request_withdrawn";

export interface Tombstone {
  readonly code: DeadRequestCode;
  /** For `request_used`: the lease the approval opened (none when the attempt failed verification). */
  readonly leaseId?: string;
}

export const MAX_TOMBSTONES = 512;

export class RequestTombstones {
  readonly #entries = new Map<string, Tombstone>();

  constructor(private readonly max = MAX_TOMBSTONES) {}

  bury(requestId: string, tombstone: Tombstone): void {
    this.#entries.delete(requestId);
    this.#entries.set(requestId, tombstone);
    while (this.#entries.size > this.max) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }

  get(requestId: string): Tombstone | undefined {
    return this.#entries.get(requestId);
  }
}
