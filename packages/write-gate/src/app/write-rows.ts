/**
 * @module A lease's writes as the page lists them: the keeper keeps ids; the page
 * gets the environment's alias, the thread's title where the gate's inventory saw it, and the
 * action's label from the catalogue. Never message text.
 */
import { actionLabel } from "@t3-connector/write-engine/actions";
import type { LeaseWrite } from "../contract.js";
import type { WriteRow } from "../events/gate-events.js";
import type { ClosedLease, GateLeaseKeeper } from "../lease/lease-keeper.js";

export interface RowNames {
  /** The alias of an environment id (the id itself when unknown). */
  alias(environmentId: string): string;
  threadTitle(environmentId: string, threadId: string): string | undefined;
}

export function writeRow(write: LeaseWrite, names: RowNames): WriteRow {
  const title =
    write.threadId === undefined ? undefined : names.threadTitle(write.environmentId, write.threadId);
  return {
    leaseId: write.leaseId,
    at: write.at,
    environmentAlias: names.alias(write.environmentId),
    ...(write.threadId === undefined ? {} : { threadId: write.threadId }),
    ...(title === undefined ? {} : { threadTitle: title }),
    action: write.action,
    actionLabel: actionLabel(write.action),
    outcome: write.state,
    operationId: write.operationId,
  };
}

/** One open lease's writes, newest first. */
export function openLeaseRows(keeper: GateLeaseKeeper, leaseId: string, names: RowNames): WriteRow[] {
  return [...keeper.writes(leaseId)].reverse().map((write) => writeRow(write, names));
}

export interface LeaseHistoryRow {
  readonly leaseId: string;
  readonly client?: ClosedLease["client"];
  readonly grantedAt: string;
  readonly closedAt: string;
  readonly closeReason: string;
  readonly scopeFingerprint: string;
  readonly writes: readonly WriteRow[];
}

/** The last closed leases, newest first, each with its writes newest first. */
export function leaseHistoryRows(history: readonly ClosedLease[], names: RowNames): LeaseHistoryRow[] {
  return history.map((closed) => ({
    leaseId: closed.leaseId,
    ...(closed.client === undefined ? {} : { client: closed.client }),
    grantedAt: closed.grantedAt,
    closedAt: closed.closedAt,
    closeReason: closed.closeReason,
    scopeFingerprint: closed.scopeFingerprint,
    writes: closed.writes.map((write) => writeRow(write, names)),
  }));
}

/** One thread a thread-limited lease admits, by title where the gate's inventory saw it (ADR 0041). */
export interface LimitedThread {
  readonly environmentId: string;
  readonly threadId: string;
  readonly title?: string;
}

/** The threads a lease is limited to, per environment grant that names some; empty for whole projects. */
export function limitedThreads(
  scope: { readonly environments: ReadonlyArray<{ environmentId: string; threadIds?: readonly string[] }> },
  names: RowNames,
): LimitedThread[] {
  return scope.environments.flatMap((grant) =>
    (grant.threadIds ?? []).map((threadId) => {
      const title = names.threadTitle(grant.environmentId, threadId);
      return { environmentId: grant.environmentId, threadId, ...(title === undefined ? {} : { title }) };
    }),
  );
}
