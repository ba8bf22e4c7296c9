/**
 * The operator's policy: no lease and no journal (ADR 0012). `t3-connector-ops` runs under its own
 * operate token, so nothing is approved per write and nothing is journaled, but the one send and
 * what its answer means are the gate's (`send.ts`), not a copy: a typed refusal ran nothing, an
 * older server's decode defect names the types it accepts, and a conflict, a defect or a lost
 * answer leaves the outcome unknown.
 */

import type { ConnectorError } from "@t3-connector/core";
import type { T3RpcClient } from "@t3-connector/core/t3";
import type { BuiltPayload } from "../actions/index.js";
import type { JournalReceipt } from "../journal/index.js";
import { sendOnce } from "./send.js";
import type { LeaseVerdict } from "./types.js";

/** Without a lease every write passes the final check; the catalogue's guards still ran before. */
const NO_LEASE: LeaseVerdict = Object.freeze({ ok: true, approvedWorkspaceRoots: [] });

export type OperatorSendOutcome =
  | { readonly kind: "completed"; readonly receipt: JournalReceipt }
  /** Provably not applied: thrown to the operator as is. */
  | { readonly kind: "refused"; readonly error: ConnectorError }
  /** T3 may have applied it: the operator reads the thread, or repeats the same operationId. */
  | { readonly kind: "uncertain"; readonly error: ConnectorError };

export async function sendWithoutLease(
  client: T3RpcClient,
  payload: BuiltPayload,
): Promise<OperatorSendOutcome> {
  const outcome = await sendOnce(client, payload, () => NO_LEASE);
  switch (outcome.kind) {
    case "completed":
      return outcome;
    case "not_sent":
    case "refused":
      return { kind: "refused", error: outcome.error };
    case "conflict":
    case "defect":
    case "lost":
      return { kind: "uncertain", error: outcome.error };
  }
}
