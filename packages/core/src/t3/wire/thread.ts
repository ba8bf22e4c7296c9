import { z } from "zod";
import { RUN_STATUSES } from "../../run-status.js";
import { listOf, nonNegativeInt, openEnum } from "./lenient.js";
import { threadIdentityShape, threadMarkersShape } from "./shell.js";

/** `OrchestrationV2AppThread`: identity and settings of a thread. */
export const AppThreadSchema = z.looseObject({
  ...threadIdentityShape,
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  ...threadMarkersShape,
});
export type AppThread = z.output<typeof AppThreadSchema>;

/** `OrchestrationV2Run`. */
export const RunSchema = z.looseObject({
  id: z.string(),
  threadId: z.string(),
  ordinal: z.number().optional(),
  status: openEnum(RUN_STATUSES),
  userMessageId: z.string().nullish(),
  activeAttemptId: z.string().nullish(),
  queuePosition: z.number().nullish(),
  /** Newer servers: a queued run held by `run.interrupt {holdQueue}` until `queue.resume`. */
  queueHeld: z.boolean().optional(),
  requestedAt: z.string().optional(),
  startedAt: z.string().nullish(),
  completedAt: z.string().nullish(),
});
export type Run = z.output<typeof RunSchema>;

export const RunAttemptSchema = z.looseObject({
  id: z.string(),
  runId: z.string(),
  status: openEnum(["pending", "running", "completed", "interrupted", "failed", "cancelled", "superseded"]),
  reason: z.string().optional(),
});
export type RunAttempt = z.output<typeof RunAttemptSchema>;

/** Pending approval or question; its content lives in the matching turn item. */
export const RuntimeRequestSchema = z.looseObject({
  id: z.string(),
  nodeId: z.string().nullish(),
  kind: openEnum([
    "command",
    "file-read",
    "file-change",
    "mcp-elicitation",
    "permission",
    "dynamic_tool_call",
    "user_input",
    "auth_refresh",
  ]),
  status: openEnum(["pending", "resolved", "expired", "cancelled"]),
  responseCapability: z.looseObject({ type: z.string() }).optional(),
  createdAt: z.string().optional(),
  resolvedAt: z.string().nullish(),
});
export type RuntimeRequest = z.output<typeof RuntimeRequestSchema>;

/** Conversation message. */
export const MessageSchema = z.looseObject({
  id: z.string(),
  threadId: z.string().optional(),
  runId: z.string().nullish(),
  role: openEnum(["user", "assistant", "system"]),
  text: z.string(),
  streaming: z.boolean().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type Message = z.output<typeof MessageSchema>;

/** Turn item: common fields typed, per-type fields kept as they come. */
export const TurnItemSchema = z.looseObject({
  id: z.string(),
  threadId: z.string().optional(),
  runId: z.string().nullish(),
  type: openEnum([
    "user_message",
    "assistant_message",
    "reasoning",
    "proposed_plan",
    "todo_list",
    "user_input_request",
    "file_change",
    "command_execution",
    "file_search",
    "web_search",
    "approval_request",
    "checkpoint",
    "run_interrupt_request",
    "run_interrupt_result",
    "system_notice",
    "error",
    "compaction",
    "handoff",
    "fork",
    "thread_created",
    "subagent",
    "dynamic_tool",
  ]),
  status: z.string().optional(),
  ordinal: z.number().optional(),
  title: z.string().nullish(),
  text: z.string().optional(),
  requestId: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type TurnItem = z.output<typeof TurnItemSchema>;

/** A timeline row of `visibleTurnItems` and history pages. */
export const ProjectedTurnItemSchema = z.looseObject({
  position: z.number().optional(),
  visibility: z.string().optional(),
  sourceThreadId: z.string().optional(),
  sourceItemId: z.string().optional(),
  item: TurnItemSchema,
});
export type ProjectedTurnItem = z.output<typeof ProjectedTurnItemSchema>;

/** `OrchestrationV2ThreadProjection`. Lists we do not read stay `unknown[]`. */
export const ThreadProjectionSchema = z.looseObject({
  thread: AppThreadSchema,
  runs: listOf(RunSchema),
  attempts: listOf(RunAttemptSchema),
  runtimeRequests: listOf(RuntimeRequestSchema),
  messages: listOf(MessageSchema),
  turnItems: listOf(TurnItemSchema),
  visibleTurnItems: listOf(ProjectedTurnItemSchema),
  nodes: listOf(z.unknown()),
  plans: listOf(z.unknown()),
  providerThreads: listOf(z.unknown()),
  checkpoints: listOf(z.unknown()),
  updatedAt: z.string().optional(),
});
export type ThreadProjection = z.output<typeof ThreadProjectionSchema>;

/** `GET /api/orchestration/threads/:id` — `{snapshotSequence, projection}`. */
export const ThreadSnapshotSchema = z.looseObject({
  snapshotSequence: nonNegativeInt,
  projection: ThreadProjectionSchema,
});
export type ThreadSnapshot = z.output<typeof ThreadSnapshotSchema>;

/** `GET /api/orchestration/threads/:id/bounded` — a recent window plus a history cursor. */
export const ThreadBoundedSnapshotSchema = z.looseObject({
  snapshotSequence: nonNegativeInt,
  projection: ThreadProjectionSchema,
  historyCursor: z.string().nullish(),
  hasMoreHistory: z.boolean().optional().default(false),
  latestLocalTurnOrdinal: z.number().nullish(),
  payloadBudgetExceeded: z.boolean().optional(),
});
export type ThreadBoundedSnapshot = z.output<typeof ThreadBoundedSnapshotSchema>;

/** `GET /api/orchestration/threads/:id/history?cursor=` — older rows, chronological. */
export const ThreadHistoryPageSchema = z.looseObject({
  snapshotSequence: nonNegativeInt,
  items: z.array(ProjectedTurnItemSchema),
  nextCursor: z.string().nullish(),
  hasMoreHistory: z.boolean().optional().default(false),
});
export type ThreadHistoryPage = z.output<typeof ThreadHistoryPageSchema>;

/** Domain event envelope. `type` is open and `payload` is read by whoever knows the type. */
export const DomainEventSchema = z.looseObject({
  id: z.string().optional(),
  threadId: z.string().optional(),
  runId: z.string().optional(),
  occurredAt: z.string().optional(),
  type: z.string(),
  payload: z.unknown(),
});
export type DomainEvent = z.output<typeof DomainEventSchema>;

/**
 * `orchestration.launchThread` success. The projection stays undecoded: the thread exists once
 * T3 answered, and a projection shape we cannot read must never turn a done write into an error.
 */
export const LaunchThreadResultSchema = z.looseObject({
  threadId: z.string(),
  projection: z.unknown(),
  resumed: z.boolean().optional().default(false),
});
export type LaunchThreadResult = z.output<typeof LaunchThreadResultSchema>;

/** `orchestration.dispatchCommand` success. */
export const DispatchResultSchema = z.looseObject({ sequence: nonNegativeInt });
export type DispatchResult = z.output<typeof DispatchResultSchema>;
