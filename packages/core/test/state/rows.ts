import type { ShellThreadInput, ThreadProjectionInput } from "../../src/state/index.js";

/** Fixed instants so that every case reads as a timeline. */
export const T = {
  created: "2026-12-01T10:00:00.000Z",
  snoozedAt: "2026-12-01T11:00:00.000Z",
  beforeSnooze: "2026-12-01T10:30:00.000Z",
  afterSnooze: "2026-12-01T11:30:00.000Z",
  snoozedUntil: "2026-12-01T12:00:00.000Z",
  later: "2026-12-01T13:00:00.000Z",
} as const;

export const ms = (iso: string): number => Date.parse(iso);

export const RUN_1 = "run:thread:th-1:ordinal:1";
export const RUN_2 = "run:thread:th-1:ordinal:2";

/**
 * An idle V2 shell row with every field the server sends (nulls included), as the real captures
 * show it; each case overrides what it is about.
 */
export function shellRow(overrides: ShellThreadInput = {}): ShellThreadInput {
  return {
    id: "th-1",
    projectId: "proj-1",
    title: "a thread",
    providerInstanceId: "codex",
    modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
    runtimeMode: "full-access",
    branch: null,
    worktreePath: null,
    activeProviderThreadId: null,
    latestRunId: null,
    latestRunCompletedAt: null,
    activeRunId: null,
    activityRunStatus: null,
    status: "idle",
    lastError: null,
    pendingRuntimeRequest: null,
    hasActionableProposedPlan: false,
    pendingBackgroundTasks: [],
    updatedAt: T.created,
    archivedAt: null,
    deletedAt: null,
    settledOverride: null,
    settledAt: null,
    snoozedUntil: null,
    snoozedAt: null,
    lastVisitedAt: null,
    ...overrides,
  };
}

/** A row whose latest run (RUN_1) finished with `status`. */
export function finishedRow(status: string, overrides: ShellThreadInput = {}): ShellThreadInput {
  return shellRow({
    activeProviderThreadId: "provider-thread:1",
    latestRunId: RUN_1,
    latestRunCompletedAt: T.later,
    status,
    updatedAt: T.later,
    ...overrides,
  });
}

/** A row whose latest run (RUN_1) is the active one, with `status`. */
export function activeRow(status: string, overrides: ShellThreadInput = {}): ShellThreadInput {
  return shellRow({
    activeProviderThreadId: "provider-thread:1",
    latestRunId: RUN_1,
    activeRunId: RUN_1,
    activityRunStatus: status,
    status,
    updatedAt: T.later,
    ...overrides,
  });
}

export function projection(overrides: ThreadProjectionInput = {}): ThreadProjectionInput {
  return {
    runs: [],
    runtimeRequests: [],
    messages: [],
    turnItems: [],
    visibleTurnItems: [],
    providerSessions: [],
    ...overrides,
  };
}
