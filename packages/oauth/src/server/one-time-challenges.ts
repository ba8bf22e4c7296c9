/**
 * @module WebAuthn challenges waiting for their answer: single use, at most 2 minutes, capped.
 * `take` deletes the entry before anything awaits, so a challenge serves once.
 */
import { randomBytes } from "node:crypto";
import { type Clock, ConnectorError } from "@t3-connector/core";

const MAX_PENDING = 32;

export class OneTimeChallenges<T> {
  readonly #entries = new Map<string, { challenge: string; value: T; deadline: number }>();

  constructor(private readonly options: { clock: Clock; ttlMs: number }) {}

  add(challenge: string, value: T): string {
    const now = this.options.clock.monotonic();
    for (const [id, entry] of this.#entries) if (now >= entry.deadline) this.#entries.delete(id);
    if (this.#entries.size >= MAX_PENDING)
      throw new ConnectorError("rate_limited", "too many ceremonies at once");
    const id = randomBytes(24).toString("base64url");
    this.#entries.set(id, { challenge, value, deadline: now + this.options.ttlMs });
    return id;
  }

  take(id: string): { challenge: string; value: T } | undefined {
    const entry = this.#entries.get(id);
    this.#entries.delete(id);
    if (entry === undefined || this.options.clock.monotonic() >= entry.deadline) return undefined;
    return { challenge: entry.challenge, value: entry.value };
  }
}
