/**
 * @module The OAuth routes' request budgets: core's per-address `RequestBudget` (shared with the
 * write gate, ADR 0033). Behind a tunnel every request comes from one peer, so the limits are
 * per-process ceilings there; the edge should rate-limit per real client too (docs/oauth.md).
 */
export { RequestBudget as RateBudget } from "@t3-connector/core/passkeys";

/** Per minute and client address. */
export const RATE_LIMITS = Object.freeze({ token: 60, register: 10, ceremony: 30, authorize: 30 });
