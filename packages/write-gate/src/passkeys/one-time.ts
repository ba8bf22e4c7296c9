/**
 * @module One-time entries with a lifetime and a cap (registration challenges, step-up tickets).
 * `take` deletes the entry before anyone can await on it, so an entry serves at most once.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "@t3-connector/core";

export class OneTimeBook<T> {
  readonly #entries = new Map<string, { value: T; deadline: number }>();

  constructor(private readonly options: { clock: Clock; ttlMs: number; max: number }) {}

  /** A fresh opaque id (32 random bytes, base64url), or null when the book is full. */
  add(value: T): string | null {
    this.prune();
    if (this.#entries.size >= this.options.max) return null;
    const id = randomBytes(32).toString("base64url");
    this.#entries.set(id, { value, deadline: this.options.clock.monotonic() + this.options.ttlMs });
    return id;
  }

  take(id: string): T | undefined {
    const entry = this.#entries.get(id);
    this.#entries.delete(id);
    if (entry === undefined || this.options.clock.monotonic() >= entry.deadline) return undefined;
    return entry.value;
  }

  clear(): void {
    this.#entries.clear();
  }

  prune(): void {
    const now = this.options.clock.monotonic();
    for (const [id, entry] of this.#entries) if (now >= entry.deadline) this.#entries.delete(id);
  }
}
