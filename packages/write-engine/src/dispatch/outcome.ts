/**
 * What one dispatch left, as a typed union for the caller that must record and audit it (the gate's
 * relay, its page's write list). The dispatcher answers a refusal by throwing the ConnectorError the
 * client will read; the journal state that refusal left travels in that error's details, which
 * only this file reads, next to the dispatcher that writes them.
 */
import { type ConnectorError, isConnectorError } from "@t3-connector/core";
import type { DispatchCompleted } from "./types.js";

export type DispatchFailure =
  /** Refused before the journal reserved anything (lease, input, unknown environment): no record. */
  (
    | { readonly state: "not_recorded"; readonly error: unknown }
    | {
        /** `refused`: durably not applied (or T3 refused it); `uncertain`: it may have reached T3. */
        readonly state: "refused" | "uncertain";
        /** True when the journal already held this answer and nothing ran now. */
        readonly replayed: boolean;
        readonly error: ConnectorError;
      }
  ) & {
    /** The environment, once its alias or id resolved. */
    readonly environmentId?: string;
    /** The first thread the write targets, once its input parsed (absent for a launch). */
    readonly threadId?: string;
    /**
     * The gate must end the lease the write was made under: its send went out and the answer was
     * lost (the engine already sends nothing more under it; ADR 0063).
     */
    readonly endsLease?: "uncertain_send";
  };

export type DispatchOutcome = DispatchCompleted | DispatchFailure;

/** The error detail by which a lost send asks for its lease's end; it never crosses the relay. */
export const ENDS_LEASE = "endsLease";

/** The journal state a thrown dispatch error left, and whether it was a replay. */
export function dispatchFailureOf(error: unknown): DispatchFailure {
  if (!isConnectorError(error)) return { state: "not_recorded", error };
  const replayed = error.details?.replayed === true;
  const state = error.details?.state;
  const ends =
    error.details?.[ENDS_LEASE] === "uncertain_send" ? { endsLease: "uncertain_send" as const } : {};
  if (state === "refused" || state === "uncertain") return { state, replayed, error, ...ends };
  // An uncertain record met again before it was settled: still uncertain, nothing sent now.
  if (error.code === "reconciliation_required") return { state: "uncertain", replayed, error, ...ends };
  return { state: "not_recorded", error };
}
