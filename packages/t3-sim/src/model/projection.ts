/**
 * Read models built from a thread record: the full projection (HTTP thread detail, ws
 * getThreadProjection, thread-stream snapshot), the shell row (sidebar), and the project shells.
 * Shapes follow fixtures 40/42/71/90/91 key for key.
 */
import { latestRun } from "./latest-run.js";
import { pendingSecretRequest } from "./secret-requests.js";
import type { SimStore, ThreadRecord } from "./store.js";
import {
  BLOCKING_RUN_STATUSES,
  type ProjectedTurnItem,
  type ProjectRecord,
  type Run,
  type TurnItem,
} from "./types.js";

const values = <T>(map: Map<string, T>): T[] => [...map.values()];

/** Timeline rows in order: inherited rows (forks) first, then local items by ordinal. */
export function visibleTurnItems(record: ThreadRecord): ProjectedTurnItem[] {
  const local = values(record.turnItems).sort((a, b) => a.ordinal - b.ordinal);
  const rows: ProjectedTurnItem[] = record.inherited.map((row, index) => ({ ...row, position: index }));
  for (const item of local) {
    rows.push({
      position: rows.length,
      visibility: "local",
      sourceThreadId: record.thread.id,
      sourceItemId: item.id,
      item: wireItem(item),
    });
  }
  return rows;
}

/**
 * Wire projections strip tool output text; current upstream marks a
 * withheld command output with `outputOmitted: true` (fetch it with `getTurnItem`).
 */
function wireItem(item: TurnItem): TurnItem {
  if (item.type === "command_execution" && "output" in item) {
    const { output: _output, ...rest } = item;
    return { ...rest, outputOmitted: true } as TurnItem;
  }
  if (item.type === "file_change") {
    const { diffStr: _d, oldStr: _o, newStr: _n, ...rest } = item;
    return rest as TurnItem;
  }
  return item;
}

export function buildProjection(record: ThreadRecord, window?: ProjectedTurnItem[]): Record<string, unknown> {
  const rows = window ?? visibleTurnItems(record);
  const turnItems = window
    ? rows.filter((row) => row.visibility === "local").map((row) => row.item)
    : values(record.turnItems)
        .sort((a, b) => a.ordinal - b.ordinal)
        .map(wireItem);
  return {
    thread: record.thread,
    runs: values(record.runs),
    attempts: values(record.attempts),
    nodes: values(record.nodes),
    subagents: values(record.subagents),
    providerSessions: values(record.providerSessions),
    providerThreads: values(record.providerThreads),
    providerTurns: values(record.providerTurns),
    runtimeRequests: values(record.runtimeRequests),
    messages: values(record.messages),
    plans: values(record.plans),
    turnItems,
    checkpointScopes: values(record.checkpointScopes),
    checkpoints: values(record.checkpoints),
    contextHandoffs: [],
    contextTransfers: values(record.contextTransfers),
    visibleTurnItems: rows,
    updatedAt: record.thread.updatedAt,
  };
}

/** The run that occupies the provider: preparing, starting, running or waiting. */
export function activeRun(record: ThreadRecord): Run | undefined {
  for (const run of record.runs.values()) if (BLOCKING_RUN_STATUSES.includes(run.status)) return run;
  return undefined;
}

export function queuedRuns(record: ThreadRecord): Run[] {
  return values(record.runs)
    .filter((run) => run.status === "queued")
    .sort((a, b) => (a.queuePosition ?? 0) - (b.queuePosition ?? 0));
}

function lastError(record: ThreadRecord, run: Run | undefined): string | null {
  if (run?.status !== "failed") return null;
  const items = values(record.turnItems).filter((item) => item.type === "error" && item.runId === run.id);
  const failure = items.at(-1)?.failure as { message?: string } | undefined;
  return failure?.message ?? "Run failed.";
}

function hasActionableProposedPlan(record: ThreadRecord, run: Run | undefined): boolean {
  if (run?.status !== "completed") return false;
  return values(record.plans).some(
    (plan) => plan.kind === "proposed_plan" && plan.runId === run.id && plan.status === "active",
  );
}

function lastErrorClass(record: ThreadRecord, run: Run | undefined): string | null {
  if (run?.status !== "failed") return null;
  const items = values(record.turnItems).filter((item) => item.type === "error" && item.runId === run.id);
  const failure = items.at(-1)?.failure as { class?: string } | undefined;
  return failure?.class ?? "unknown";
}

/** Distinct provider instances that owned a provider thread here, in first-use order. */
function providerInstanceHistory(record: ThreadRecord): string[] {
  return [...new Set(values(record.providerThreads).map((thread) => thread.providerInstanceId))];
}

/**
 * `OrchestrationV2ThreadShell`, the sidebar row (fixture 40 key order). `newer` adds the fields
 * current upstream's row carries and 0.0.31's did not (docs/t3-protocol-notes.md):
 * `pullRequests`, `branchPullRequest`, `activityRunStartedAt`, `lastErrorClass`,
 * `usageLimitResetAt`, `latestUserAuthoredMessageAt`, `providerInstanceHistory`, `limitRecovery`,
 * `autoSettleDisabledAt`, `activeOrderKey`.
 */
export function buildShellThread(record: ThreadRecord, newer = true): Record<string, unknown> {
  const row = olderShellRow(record);
  return newer ? withNewerFields(row, record) : row;
}

/** The visible messages, oldest update first (the shell's "latest" fields read from the end). */
function messagesByUpdate(record: ThreadRecord) {
  return values(record.messages)
    .filter((message) => message.text.length > 0)
    .sort((a, b) => a.updatedAt.localeCompare(b.updatedAt));
}

/**
 * A newer build's row: the older row with each newer field inserted after the field it follows
 * on the wire (key order matters to a reader comparing captures), and `activeOrderKey` last.
 */
function withNewerFields(row: Record<string, unknown>, record: ThreadRecord): Record<string, unknown> {
  const t = record.thread;
  const latest = latestRun(record);
  const active = activeRun(record);
  const latestAuthored = messagesByUpdate(record)
    .filter((message) => message.role === "user" && message.createdBy === "user")
    .at(-1);
  const withNewer: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    withNewer[key] = value;
    if (key === "worktreePath") {
      withNewer.pullRequests = t.pullRequests ?? [];
      withNewer.branchPullRequest = null;
    } else if (key === "pendingRuntimeRequest") {
      if (record.rowNamesSecret !== false) withNewer.pendingSecretRequest = pendingSecretRequest(record);
    } else if (key === "activeRunId") {
      withNewer.activityRunStartedAt = active ? (active.startedAt ?? active.requestedAt) : null;
    } else if (key === "lastError") {
      withNewer.lastErrorClass = lastErrorClass(record, latest);
      withNewer.usageLimitResetAt = null;
    } else if (key === "latestUserMessageAt") {
      withNewer.latestUserAuthoredMessageAt = latestAuthored?.createdAt ?? null;
    } else if (key === "pendingBackgroundTasks") {
      withNewer.providerInstanceHistory = providerInstanceHistory(record);
    } else if (key === "snoozedAt") {
      withNewer.limitRecovery = null;
    } else if (key === "pinnedAt") {
      withNewer.autoSettleDisabledAt = t.autoSettleDisabledAt ?? null;
    }
  }
  withNewer.activeOrderKey = t.activeOrderKey ?? null;
  return withNewer;
}

/** The row an older build (0.0.31) sends: identity, then activity, then lifecycle, in wire order. */
function olderShellRow(record: ThreadRecord): Record<string, unknown> {
  const t = record.thread;
  return {
    createdBy: t.createdBy,
    creationSource: t.creationSource,
    id: t.id,
    projectId: t.projectId,
    title: t.title,
    providerInstanceId: t.providerInstanceId,
    modelSelection: t.modelSelection,
    runtimeMode: t.runtimeMode,
    interactionMode: t.interactionMode,
    branch: t.branch,
    worktreePath: t.worktreePath,
    ...(t.linkedPullRequest !== undefined ? { linkedPullRequest: t.linkedPullRequest } : {}),
    lineage: t.lineage,
    forkedFrom: t.forkedFrom,
    activeProviderThreadId: t.activeProviderThreadId,
    ...activityFields(record),
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    archivedAt: t.archivedAt,
    settledOverride: t.settledOverride,
    settledAt: t.settledAt,
    ...(t.unsettledAt !== undefined ? { unsettledAt: t.unsettledAt } : {}),
    snoozedUntil: t.snoozedUntil,
    snoozedAt: t.snoozedAt,
    pinnedAt: t.pinnedAt ?? null,
    ...(t.pinOrderKey ? { pinOrderKey: t.pinOrderKey } : {}),
    lastVisitedAt: t.lastVisitedAt,
    titleRegeneration: t.titleRegeneration ?? null,
    deletedAt: t.deletedAt,
  };
}

/** The runs, the oldest pending request, the latest messages and the item counts. */
function activityFields(record: ThreadRecord): Record<string, unknown> {
  const latest = latestRun(record);
  const active = activeRun(record);
  const pending = values(record.runtimeRequests)
    .filter((request) => request.status === "pending")
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0];
  const messages = messagesByUpdate(record);
  const latestMessage = messages.at(-1);
  const latestUser = messages.filter((message) => message.role === "user").at(-1);
  return {
    latestRunId: latest?.id ?? null,
    latestRunRequestedAt: latest?.requestedAt ?? null,
    latestRunStartedAt: latest?.startedAt ?? null,
    latestRunCompletedAt: latest?.completedAt ?? null,
    // A waiting run (provider turn done, checkpoint pending) is not the "active" run.
    activeRunId: active && active.status !== "waiting" ? active.id : null,
    activityRunStatus: active?.status ?? null,
    status: latest?.status ?? "idle",
    lastError: lastError(record, latest),
    pendingRuntimeRequest: pending
      ? { id: pending.id, kind: pending.kind, createdAt: pending.createdAt }
      : null,
    latestVisibleMessage: latestMessage
      ? {
          id: latestMessage.id,
          role: latestMessage.role,
          text: latestMessage.text,
          updatedAt: latestMessage.updatedAt,
        }
      : null,
    latestUserMessageAt: latestUser?.createdAt ?? null,
    hasActionableProposedPlan: hasActionableProposedPlan(record, latest),
    pendingBackgroundTasks: [],
    itemCount: record.turnItems.size,
    visibleItemCount: record.inherited.length + record.turnItems.size,
  };
}

/** `OrchestrationProjectShell` as the shell snapshot carries it (no faviconPath/deletedAt). */
export function projectShell(project: ProjectRecord): Record<string, unknown> {
  return {
    id: project.id,
    title: project.title,
    workspaceRoot: project.workspaceRoot,
    repositoryIdentity: project.repositoryIdentity,
    defaultModelSelection: project.defaultModelSelection,
    scripts: project.scripts,
    createdAt: project.createdAt,
    updatedAt: project.updatedAt,
  };
}

/** The `/api/projects` row (fixture 11): the shell fields plus faviconPath and deletedAt. */
export function projectRow(project: ProjectRecord): Record<string, unknown> {
  return {
    id: project.id,
    title: project.title,
    workspaceRoot: project.workspaceRoot,
    repositoryIdentity: project.repositoryIdentity,
    faviconPath: project.faviconPath,
    defaultModelSelection: project.defaultModelSelection,
    scripts: project.scripts,
    createdAt: project.createdAt,
    updatedAt: project.updatedAt,
    deletedAt: project.deletedAt,
  };
}

export const SHELL_SCHEMA_VERSION = 2;

/**
 * The shell snapshot. Current upstream builds it over the active location only, so
 * `archivedThreads` is always `[]` (ShellStream.ts `buildActiveShellSnapshot`, http.ts);
 * 0.0.31 filled it (fixtures 40, 50, 90): `archivedInShell` keeps that.
 */
export function buildShellSnapshot(store: SimStore, archivedInShell = false): Record<string, unknown> {
  const threads: Record<string, unknown>[] = [];
  const archivedThreads: Record<string, unknown>[] = [];
  for (const record of store.threads.values()) {
    if (record.thread.deletedAt) continue;
    // archivedInShell is the 0.0.31 shape, which also lacks the newer row fields.
    if (!record.thread.archivedAt) threads.push(buildShellThread(record, !archivedInShell));
    else if (archivedInShell) archivedThreads.push(buildShellThread(record, false));
  }
  return {
    schemaVersion: SHELL_SCHEMA_VERSION,
    snapshotSequence: store.sequence,
    threads,
    archivedThreads,
    projects: [...store.projects.values()].map(projectShell),
  };
}

export function buildArchivedShellSnapshot(store: SimStore, newer = true): Record<string, unknown> {
  const threads: Record<string, unknown>[] = [];
  for (const record of store.threads.values()) {
    if (record.thread.archivedAt && !record.thread.deletedAt) threads.push(buildShellThread(record, newer));
  }
  return {
    schemaVersion: SHELL_SCHEMA_VERSION,
    snapshotSequence: store.sequence,
    projects: [...store.projects.values()].map(projectShell),
    threads,
  };
}
