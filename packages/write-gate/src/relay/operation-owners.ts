/**
 * Whose write each operation is (ADR 0040 §7): the holder (the hash of the secret its bridge
 * process presents) that first named an operation during this boot. A replay answers its receipt
 * only to that holder; anyone else repeating the operationId, even with the same input and a lease
 * that covers it, is refused `operation_not_held` before the journal is read. Memory only and
 * bounded: a write made before this boot has no known owner, and a covering lease is what admits
 * its replay then (the dispatcher's own checks).
 */
import { ConnectorError } from "@t3-connector/core";
import { holderHashOf } from "../lease/lease-keeper.js";

/** Operations remembered at once; the oldest are forgotten first (a memory bound, not a grant). */
export const MAX_REMEMBERED_OPERATIONS = 16_384;

/** The owner of a caller that presented no secret (a lease granted through the test seam). */
const UNNAMED = "unnamed";

export class OperationOwners {
  readonly #owners = new Map<string, string>();

  /**
   * Claims `key` for the caller presenting `secret`, or refuses when another holder owns it.
   * Answers a release for a claim this call made, to undo when nothing was recorded.
   */
  claim(key: string, secret: string | undefined): () => void {
    const caller = secret === undefined ? UNNAMED : holderHashOf(secret);
    const owner = this.#owners.get(key);
    if (owner !== undefined && owner !== caller) throw notHeld();
    if (owner !== undefined) return () => undefined;
    this.#owners.set(key, caller);
    if (this.#owners.size > MAX_REMEMBERED_OPERATIONS) {
      this.#owners.delete(this.#owners.keys().next().value as string);
    }
    return () => {
      if (this.#owners.get(key) === caller) this.#owners.delete(key);
    };
  }

  /** Whether the caller presenting `secret` may see what the write under `key` returned. */
  shows(key: string, secret: string | undefined): boolean {
    const owner = this.#owners.get(key);
    return owner === undefined || owner === (secret === undefined ? UNNAMED : holderHashOf(secret));
  }
}

function notHeld(): ConnectorError {
  return new ConnectorError(
    "operation_not_held",
    "this operationId names a write another client (or an earlier run of this bridge) made, and its receipt " +
      "is answered only to that client: choose an operationId of your own for a new write; for your own write " +
      "from before a bridge restart, t3_reconciliar_escrita tells its state",
    { details: { reason: "operation_not_held", recorded: false } },
  );
}
