import type { ConnectedEnvironment } from "../../../environments/index.js";
import { isConnectorError } from "../../../errors.js";
import type { Assumption, AssumptionGroup } from "./report.js";

/** What every probe of `diagnose --deep` reads from: one verified connection, read-only. */
export interface ProbeTarget {
  readonly connected: ConnectedEnvironment;
  /** The descriptor declares protocol 2 (not an early V2 build that declares nothing). */
  readonly protocol2Declared: boolean;
  /** A live thread of the shell to read, when there is one. */
  readonly threadId: string | undefined;
  readonly requiredScopes: readonly string[];
  readonly timeoutMs: number;
}

export type Probe = (target: ProbeTarget) => Promise<Assumption[]>;

/** An assumption builder for one group. */
export function assumption(group: AssumptionGroup) {
  return (id: string, expected: string, status: Assumption["status"], seen: string): Assumption => ({
    id,
    group,
    expected,
    status,
    seen,
  });
}

/** How a failed call is named in a report: its code only, never T3's text (it may quote input). */
export function failureSeen(error: unknown): string {
  return isConnectorError(error) ? `failed (${error.code})` : "failed unexpectedly";
}

/**
 * A word T3 chose (a stream item's kind, its version) as a report may carry it: a short plain
 * identifier, else a placeholder. A hostile or broken server cannot put terminal escapes, long
 * text or anything shaped like a credential into a report a person pastes.
 */
export function plainWord(value: unknown): string {
  return typeof value === "string" && /^[A-Za-z0-9][A-Za-z0-9._:+-]{0,39}$/.test(value)
    ? value
    : "(unprintable)";
}

/** The call died because the server does not serve the method (0.0.31's Die, 0.0.28's Defect). */
export function isUnknownMethod(error: unknown): boolean {
  return (
    isConnectorError(error) &&
    /Unknown request tag/.test(`${error.message} ${String(error.details?.defect ?? "")}`)
  );
}
