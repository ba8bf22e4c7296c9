/**
 * Who may make a reconciliation send the journaled command again (ADR 0042). Reading T3 needs no
 * one: it changes nothing. A resend reaches T3, so it needs what any send needs — an open lease,
 * held by the caller, that covers the write's environment, projects and action — or the person at
 * the terminal asking for it explicitly with no gate running. Anything else settles by reading
 * only, and the outcome says why nothing was resent.
 */
import { isConnectorError } from "@t3-connector/core";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";
import { isActionId } from "../actions/index.js";
import type { JournalRecord } from "../journal/index.js";
import { hintThreads } from "./derived-record.js";
import { projectsOf, readFreshThreads } from "./fresh-shell.js";
import type { LeaseRule } from "./lease-rule.js";
import type { ReconcileOptions } from "./reconcile.js";
import type { LeaseFacts, LeaseRequest, LeaseVerdict } from "./types.js";

export type ResendAuthority =
  /**
   * The caller's open lease, as the gate holds it: a resend needs it to cover the write, checked
   * again right before it (whether it ended meanwhile).
   */
  | { readonly lease: LeaseFacts }
  /** `t3-connector-write reconcile --resend` on a stopped gate: the person asked, after reading what. */
  | { readonly operator: true };

export const NO_LEASE_READ_ONLY = "no open lease of the caller covers a resend; settled by reading T3 only";

const OPERATOR_ASKED = (): LeaseVerdict => ({ ok: true, approvedWorkspaceRoots: [] });

/** What the reconciliation of `record` may do under `authority`: resend after a final check, or read only. */
export async function resendOptions(
  record: JournalRecord | undefined,
  authority: ResendAuthority | undefined,
  deps: { readonly rule: LeaseRule; readonly registry: EnvironmentRegistry },
): Promise<ReconcileOptions> {
  if (authority === undefined) return { readOnly: NO_LEASE_READ_ONLY };
  if ("operator" in authority) return { finalCheck: OPERATOR_ASKED };
  // A missing or settled record is answered by the reconciliation itself without any send.
  if (record === undefined || record.state !== "uncertain") return { readOnly: NO_LEASE_READ_ONLY };
  if (!isActionId(record.action)) return { readOnly: `the journal names an unknown action ${record.action}` };
  const { lease } = authority;
  const check = (stage: LeaseRequest["stage"], projectIds: readonly string[]): LeaseVerdict =>
    deps.rule.verdict(lease, lease.leaseId, request(stage, projectIds));
  const request = (stage: LeaseRequest["stage"], projectIds: readonly string[]): LeaseRequest => ({
    stage,
    environmentId: record.environmentId,
    destination: record.destination,
    action: record.action as LeaseRequest["action"],
    projectIds,
    threadIds: hintThreads(record.derivedIds ?? {}),
  });
  const admitted = check("admission", []);
  if (!admitted.ok) return { readOnly: notCovered(admitted) };
  const projectIds = await projectsOfRecord(record, deps.registry);
  if (typeof projectIds === "string") return { readOnly: projectIds };
  const scoped = check("scope", projectIds);
  if (!scoped.ok) return { readOnly: notCovered(scoped) };
  return { finalCheck: () => check("send", projectIds) };
}

function notCovered(verdict: Extract<LeaseVerdict, { ok: false }>): string {
  return `the caller's lease does not cover a resend (${verdict.code}: ${verdict.message}); settled by reading T3 only`;
}

/**
 * The projects the write touches, read now: those of the threads it was sent to (the journal's
 * hints) and the project its command names. A thread that cannot be read leaves it read only.
 */
async function projectsOfRecord(
  record: JournalRecord,
  registry: EnvironmentRegistry,
): Promise<readonly string[] | string> {
  const handle = registry.find(record.environmentId);
  if (handle === undefined) return "its environment is not configured; settled by reading only";
  const named = record.command?.body.projectId;
  const direct = typeof named === "string" ? [named] : [];
  const threads = hintThreads(record.derivedIds ?? {});
  try {
    const fresh = await readFreshThreads(await handle.connect(), threads, []);
    if (fresh.missing.length > 0) {
      return `thread ${fresh.missing.join(", ")} could not be found, so no lease can be shown to cover a resend; settled by reading only`;
    }
    return projectsOf(fresh, direct);
  } catch (error) {
    if (!isConnectorError(error)) throw error;
    return `its projects could not be read (${error.code}); settled by reading only`;
  }
}
