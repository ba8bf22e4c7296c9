/**
 * The write engine's one public entry, `@t3-connector/write-engine/engine` (ADR 0027). The gate, the reconcile and journal commands and
 * `t3-connector-ops` use the engine only through this module; the journal and the dispatcher
 * behind it are the engine's own (test/engine-boundary.test.ts holds that line).
 *
 * - `openWriteEngine`: dispatch, conditional send, reconcile, list the uncertain writes, close.
 * - `verifyJournal` / `recoverJournal` / `liftUnknownLoss`: what an operator runs on a stopped gate.
 * - `sendWithoutLease`: the operator's policy (no lease, no journal), same send rules.
 *
 * What the entry shows of the dispatcher and of the journal is listed once, in
 * `dispatch/public-dispatch.ts` and `journal/public-journal.ts`, which each folder's index
 * re-exports too (ADR 0072 renamed them from two `engine-face.ts`).
 */

export * from "../dispatch/public-dispatch.js";
export * from "../journal/public-journal.js";
export {
  type OpenWrite,
  openWriteEngine,
  type WriteEngine,
  type WriteEngineOptions,
} from "./write-engine.js";
