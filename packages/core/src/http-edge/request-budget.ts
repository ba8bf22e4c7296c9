import type { Clock } from "../clock.js";
import { ConnectorError } from "../errors.js";

export interface RequestBudgetOptions {
  readonly clock: Clock;
  /** Requests per window per client address. */
  readonly limit: number;
  /** Default 60 s. */
  readonly windowMs?: number;
  /** The table never grows past this many addresses. Default 1000. */
  readonly maxEntries?: number;
  /** What a refused caller reads (code `rate_limited`). */
  readonly message?: string;
}

/**
 * A fixed-window counter per client address, with a capped table: the one request budget of the
 * product (ADR 0072), which both passkey pages' servers charge (the gate's page and relay, the OAuth page and token routes), one table each so
 * that no route spends another's requests. Past the limit, or with the table full of addresses
 * still inside their window, a request is refused with `rate_limited`.
 */
export class RequestBudget {
  readonly #table = new Map<string, { start: number; count: number }>();
  readonly #options: RequestBudgetOptions;

  constructor(options: RequestBudgetOptions) {
    this.#options = options;
  }

  /** Counts one request from `address`; throws `rate_limited` past the limit. */
  charge(address: string): void {
    const now = this.#options.clock.monotonic();
    const windowMs = this.#options.windowMs ?? 60_000;
    const maxEntries = this.#options.maxEntries ?? 1000;
    let entry = this.#table.get(address);
    if (entry === undefined || now - entry.start >= windowMs) {
      if (entry === undefined && this.#table.size >= maxEntries) {
        for (const [key, old] of this.#table) if (now - old.start >= windowMs) this.#table.delete(key);
        // Still full: every other address is busy right now, so the newcomer waits its turn.
        if (this.#table.size >= maxEntries) throw this.#refusal();
      }
      entry = { start: now, count: 0 };
      this.#table.set(address, entry);
    }
    entry.count += 1;
    if (entry.count > this.#options.limit) throw this.#refusal();
  }

  #refusal(): ConnectorError {
    return new ConnectorError(
      "rate_limited",
      this.#options.message ?? "too many requests; try again in a minute",
    );
  }
}
