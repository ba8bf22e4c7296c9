// The HTTP edge every server of the product shares (ADR 0056): the one bounded body reader and the
// one Host/Origin check, and the per-client request budget their routes charge (ADR 0072). Framework-free (web `Request`, `Response`, `Headers`), so the read server,
// the OAuth profile and the write gate each wrap it in their own answers.
export * from "./bounded-body.js";
export * from "./budget-key.js";
export * from "./forwarded-client.js";
export * from "./host-origin.js";
export * from "./keep-alive.js";
export * from "./per-client-book.js";
export * from "./request-budget.js";
