/**
 * @module WebAuthn challenges waiting for their answer: single use, at most 2 minutes, kept per
 * client (ADR 0073): each client holds a few at once, and a full table gives up the oldest of the
 * client holding the most, so a stranger's flood never refuses the owner's ceremony.
 * `take` deletes the entry before anything awaits, so a challenge serves once.
 */
import type { Clock } from "@t3-connector/core";
import { PerClientBook } from "@t3-connector/core/http-edge";

const PER_CLIENT = 4;
const MAX_PENDING = 256;

export class OneTimeChallenges<T> {
  readonly #book: PerClientBook<{ challenge: string; value: T }>;

  constructor(options: { clock: Clock; ttlMs: number }) {
    this.#book = new PerClientBook({
      monotonic: () => options.clock.monotonic(),
      ttlMs: options.ttlMs,
      perClient: PER_CLIENT,
      max: MAX_PENDING,
    });
  }

  /** `client`: the request budget's key for the caller (ADR 0044). */
  add(client: string, challenge: string, value: T): string {
    return this.#book.add(client, { challenge, value });
  }

  take(id: string): { challenge: string; value: T } | undefined {
    return this.#book.take(id);
  }
}
