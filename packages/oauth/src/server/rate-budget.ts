/**
 * @module The OAuth routes' request budgets, on core's per-key `RequestBudget` (shared with the
 * write gate, ADR 0033). Behind a tunnel or proxy every request comes from one peer, the owner's
 * as well as a stranger's, so a budget that refused requests before looking at them would let a
 * stranger spend the owner's sign-in. These budgets therefore count only what failed (a wrong
 * code, a bad assertion, an unknown transaction) and what a stranger can make without proof (a
 * new registration): past the limit a failure is answered 429 instead, while a request that
 * proves itself (a passkey, a code with its verifier, a client assertion, a live refresh token)
 * is never refused by them (ADR 0043). Floods are the edge's to limit (docs/oauth.md).
 */
import { ConnectorError } from "@t3-connector/core";
import { RequestBudget } from "@t3-connector/core/http-edge";

/**
 * Per minute and key: the client's budget key (its address as the host app knows it, behind a
 * trusted proxy the one the proxy reports, an IPv6 client by its /64; ADR 0044), with the
 * client_id where there is one. Each table keeps at most 1000 keys (core's `RequestBudget`): a
 * key stays until its minute is over, and a new key finds a full table refused, never given
 * another's place, so a flood of addresses neither grows memory nor frees a spent budget.
 */
export const RATE_LIMITS = Object.freeze({ token: 60, register: 10, ceremony: 30 });

/** A budget charged by failures only. */
export class FailureBudget {
  readonly #budget: RequestBudget;

  constructor(options: ConstructorParameters<typeof RequestBudget>[0]) {
    this.#budget = new RequestBudget(options);
  }

  /** Runs `work`; a ConnectorError it throws is charged to `key` (429 past the limit). */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ConnectorError && error.code !== "rate_limited") this.#budget.charge(key);
      throw error;
    }
  }
}
