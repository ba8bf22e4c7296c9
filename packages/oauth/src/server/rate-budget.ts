/**
 * @module A fixed-window request budget per client address, with a capped table. Behind a tunnel
 * every request comes from one peer, so the limits are per-process ceilings there; the edge should
 * rate-limit per real client too (docs/oauth.md).
 */
import { type Clock, ConnectorError } from "@t3-connector/core";

export class RateBudget {
  readonly #table = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly options: { clock: Clock; limit: number; windowMs?: number; maxEntries?: number },
  ) {}

  /** Counts one request; `rate_limited` past the limit. */
  charge(address: string): void {
    const now = this.options.clock.monotonic();
    const windowMs = this.options.windowMs ?? 60_000;
    let entry = this.#table.get(address);
    if (entry === undefined || now - entry.start >= windowMs) {
      if (entry === undefined && this.#table.size >= (this.options.maxEntries ?? 1000)) {
        for (const [key, old] of this.#table) if (now - old.start >= windowMs) this.#table.delete(key);
        if (this.#table.size >= (this.options.maxEntries ?? 1000)) throw limited();
      }
      entry = { start: now, count: 0 };
      this.#table.set(address, entry);
    }
    entry.count += 1;
    if (entry.count > this.options.limit) throw limited();
  }
}

function limited(): ConnectorError {
  return new ConnectorError("rate_limited", "too many requests; try again in a minute");
}

/** Per minute and client address. */
export const RATE_LIMITS = Object.freeze({ token: 60, register: 10, ceremony: 30, authorize: 30 });
