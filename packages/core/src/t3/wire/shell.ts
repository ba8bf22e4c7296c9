import { z } from "zod";
import { RUN_STATUSES } from "../../run-status.js";
import { listOf, nonNegativeInt, openEnum, validatedInPlace } from "./lenient.js";

export const ModelSelectionSchema = z.looseObject({
  instanceId: z.string().optional(),
  /** Legacy shape (`{provider, model}`), still decoded by T3. */
  provider: z.string().optional(),
  model: z.string(),
  options: z.unknown().optional(),
});
export type ModelSelection = z.output<typeof ModelSelectionSchema>;

/**
 * The identity and settings a thread carries both as a sidebar row (`ThreadShellSchema`) and as
 * the `thread` of its projection (`AppThreadSchema`); spread first in both, so keys keep their order.
 */
export const threadIdentityShape = {
  id: z.string(),
  projectId: z.string(),
  title: z.string(),
  providerInstanceId: z.string().nullish(),
  modelSelection: ModelSelectionSchema.nullish(),
  runtimeMode: z.string().optional(),
  interactionMode: z.string().optional(),
};

/** The archive, settle, snooze, pin, visit and delete markers of a thread, spread last in both. */
export const threadMarkersShape = {
  archivedAt: z.string().nullish(),
  settledOverride: z.string().nullish(),
  settledAt: z.string().nullish(),
  snoozedUntil: z.string().nullish(),
  pinnedAt: z.string().nullish(),
  lastVisitedAt: z.string().nullish(),
  deletedAt: z.string().nullish(),
};

/** `OrchestrationProjectShell`. */
export const ProjectShellSchema = z.looseObject({
  id: z.string(),
  title: z.string(),
  workspaceRoot: z.string().optional(),
  /** Filled in the background; metadata-only snapshots patch it (upstream `ShellStream.ts`). */
  repositoryIdentity: z.unknown().optional(),
  defaultModelSelection: ModelSelectionSchema.nullish(),
  archivedAt: z.string().nullish(),
  deletedAt: z.string().nullish(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type ProjectShell = z.output<typeof ProjectShellSchema>;

/** `OrchestrationV2ThreadShell`, the sidebar row. */
export const ThreadShellSchema = z.looseObject({
  ...threadIdentityShape,
  status: openEnum(["idle", ...RUN_STATUSES]),
  activityRunStatus: z.string().nullish(),
  latestRunId: z.string().nullish(),
  activeRunId: z.string().nullish(),
  lastError: z.unknown().optional(),
  /**
   * Newer servers (upstream shell rows): absent on older ones, so every
   * one is optional; the state projection prefers them when present.
   */
  lastErrorClass: z.string().nullish(),
  usageLimitResetAt: z.string().nullish(),
  limitRecovery: z.unknown().optional(),
  activeOrderKey: z.string().nullish(),
  autoSettleDisabledAt: z.string().nullish(),
  latestUserAuthoredMessageAt: z.string().nullish(),
  activityRunStartedAt: z.string().nullish(),
  pendingRuntimeRequest: z
    .looseObject({ id: z.string(), kind: z.string().optional(), createdAt: z.string().optional() })
    .nullish(),
  latestVisibleMessage: z
    .looseObject({
      id: z.string(),
      role: z.string().optional(),
      text: z.string().optional(),
      updatedAt: z.string().optional(),
    })
    .nullish(),
  latestUserMessageAt: z.string().nullish(),
  hasActionableProposedPlan: z.boolean().optional(),
  /** Newer entries also carry `kind` (subagent, command, monitor, background_task). */
  pendingBackgroundTasks: listOf(z.looseObject({ taskId: z.string(), kind: z.string().optional() })),
  itemCount: z.number().optional(),
  visibleItemCount: z.number().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  ...threadMarkersShape,
});
export type ThreadShell = z.output<typeof ThreadShellSchema>;

/**
 * A shell row as whole shells carry them (HTTP shell, stream snapshots, archived snapshot): the
 * same checks as `ThreadShellSchema`, answering the parsed row itself (see `validatedInPlace`).
 */
export const ShellRowSchema = validatedInPlace(ThreadShellSchema);

/** `GET /api/orchestration/shell` (V2: no root `updatedAt`; `schemaVersion` 2 observed). */
export const ShellSnapshotSchema = z.looseObject({
  schemaVersion: z.number().optional(),
  snapshotSequence: nonNegativeInt,
  threads: z.array(ShellRowSchema),
  archivedThreads: listOf(ShellRowSchema),
  projects: z.array(ProjectShellSchema),
});
export type ShellSnapshot = z.output<typeof ShellSnapshotSchema>;

/** The shell as the protocol check reads it: any rows, whatever their version. */
export const ShellProtocolMarksSchema = z.looseObject({
  schemaVersion: z.unknown().optional(),
  threads: z.unknown().optional(),
});

/** `orchestration.getArchivedShellSnapshot` (fixture 70). */
export const ArchivedShellSnapshotSchema = z.looseObject({
  schemaVersion: z.number().optional(),
  snapshotSequence: nonNegativeInt,
  threads: z.array(ShellRowSchema),
  projects: z.array(ProjectShellSchema),
});
export type ArchivedShellSnapshot = z.output<typeof ArchivedShellSnapshotSchema>;

/** `GET /api/projects` (fixture 11). */
export const ProjectsSnapshotSchema = z.looseObject({
  projects: z.array(ProjectShellSchema),
  updatedAt: z.string().optional(),
});
export type ProjectsSnapshot = z.output<typeof ProjectsSnapshotSchema>;
