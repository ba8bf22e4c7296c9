/**
 * How each catalogue action is presented as an MCP tool, keyed by action id: the tool's literal
 * name, whether it may lose work (the `destructiveHint`), and notes only a model needs (field
 * names, guards), appended to the action's plain description. The catalogue itself
 * (`@t3-connector/write-engine/actions`) knows nothing of MCP: the gate and the operator CLI read
 * it too. Everything not listed here is the same for every write tool (see `writeToolAnnotations`).
 */
import type {
  ActionId,
  CONDITIONAL_SEND_ACTION,
  THREADS_BATCH_ACTION,
} from "@t3-connector/write-engine/actions";

/** `a.b-c` → `a_b_c`: the compiler checks that every literal tool name follows the naming rule. */
export type Underscored<S extends string> = S extends `${infer H}.${infer T}`
  ? Underscored<`${H}_${T}`>
  : S extends `${infer H}-${infer T}`
    ? Underscored<`${H}_${T}`>
    : S;
export type ToolNameOf<A extends string> = `t3_escrever_${Underscored<A>}`;

/** One tool's row in the table. An entry says only what differs: a tool is not destructive and has no notes. */
export interface WriteToolRow<A extends string = string> {
  readonly name: ToolNameOf<A>;
  /** True when the write loses work or cannot be undone; false (the default) for writes that merely add or flag. */
  readonly destructive?: true;
  readonly notes?: string;
}

type ToolTable = {
  readonly [A in ActionId | typeof CONDITIONAL_SEND_ACTION | typeof THREADS_BATCH_ACTION]: WriteToolRow<A>;
};

/** Every write tool, in catalogue order, then the composite conditional send. */
export const WRITE_TOOL_TABLE = {
  "thread.archive": { name: "t3_escrever_thread_archive", notes: "thread.unarchive brings it back." },
  "thread.unarchive": { name: "t3_escrever_thread_unarchive" },
  "thread.delete": {
    name: "t3_escrever_thread_delete",
    destructive: true,
    notes: "This cannot be undone from the connector.",
  },
  "thread.settle": {
    name: "t3_escrever_thread_settle",
    notes:
      "Refused while a run is in flight or a request is pending unless allowActiveRun / allowPendingRequest is true.",
  },
  "thread.pin": { name: "t3_escrever_thread_pin" },
  "thread.unpin": { name: "t3_escrever_thread_unpin" },
  "thread.unsnooze": { name: "t3_escrever_thread_unsnooze" },
  "thread.mark-unread": { name: "t3_escrever_thread_mark_unread" },
  "thread.unsettle": { name: "t3_escrever_thread_unsettle" },
  "thread.snooze": {
    name: "t3_escrever_thread_snooze",
    notes:
      "snoozedUntil is an ISO date-time. Refused while a run is in flight or a request is pending unless allowActiveRun / allowPendingRequest is true.",
  },
  "thread.auto-settle.set": { name: "t3_escrever_thread_auto_settle_set" },
  "thread.pin.reorder": {
    name: "t3_escrever_thread_pin_reorder",
    notes: "orderKey is a fractional index, sorted lexicographically.",
  },
  "thread.active.reorder": {
    name: "t3_escrever_thread_active_reorder",
    notes: "orderKey is a fractional index.",
  },
  "thread.visit": {
    name: "t3_escrever_thread_visit",
    notes: "visitedAt is an ISO date-time; T3 keeps the latest.",
  },
  "thread.title": { name: "t3_escrever_thread_title", notes: "Sent as thread.metadata.update." },
  // Widening the mode lets the agent act unsupervised, so clients should confirm it like a destructive write.
  "thread.runtime-mode.set": {
    name: "t3_escrever_thread_runtime_mode_set",
    destructive: true,
    notes:
      "Widening the mode lets the agent act unsupervised; confirm it with the user like a destructive write.",
  },
  "thread.interaction-mode.set": { name: "t3_escrever_thread_interaction_mode_set" },
  "thread.model-selection.set": {
    name: "t3_escrever_thread_model_selection_set",
    notes: "Stays on the thread's current provider instance.",
  },
  "provider.switch": { name: "t3_escrever_provider_switch" },
  "provider-session.detach": { name: "t3_escrever_provider_session_detach", destructive: true },
  "run.interrupt": {
    name: "t3_escrever_run_interrupt",
    destructive: true,
    notes: "With holdQueue: true, queued runs wait for queue.resume instead of starting.",
  },
  "prepared-run.release": { name: "t3_escrever_prepared_run_release" },
  "prepared-run.retry": {
    name: "t3_escrever_prepared_run_retry",
    notes: "Only for a run whose workspace preparation failed; needs a T3 that accepts prepared-run.retry.",
  },
  "queue.resume": { name: "t3_escrever_queue_resume" },
  "queued-run.cancel": { name: "t3_escrever_queued_run_cancel", destructive: true },
  "queued-run.reorder": {
    name: "t3_escrever_queued_run_reorder",
    notes: "Moves it before beforeRunId, or to the end when beforeRunId is null.",
  },
  "queued-run.edit": { name: "t3_escrever_queued_run_edit", destructive: true },
  "queued-message.promote-to-steer": {
    name: "t3_escrever_queued_message_promote_to_steer",
    notes: "targetRunId is the running run.",
  },
  "runtime-request.approve": {
    name: "t3_escrever_runtime_request_approve",
    destructive: true,
    notes: "Sent as runtime-request.respond.",
  },
  "runtime-request.answer": {
    name: "t3_escrever_runtime_request_answer",
    notes: "Answers are keyed by question id (sent as runtime-request.respond).",
  },
  "thread.user-input.dismiss": {
    name: "t3_escrever_thread_user_input_dismiss",
    destructive: true,
    notes: "For questions answered by message only.",
  },
  "checkpoint.rollback": {
    name: "t3_escrever_checkpoint_rollback",
    destructive: true,
    notes: "restoreFiles also restores the workspace files.",
  },
  "thread.launch": {
    name: "t3_escrever_thread_launch",
    notes:
      "Sent as orchestration.launchThread. Without runtimeMode the agent runs at the lease's ceiling; the result's runtimeMode says which mode it got.",
  },
  // restart_active interrupts the current attempt.
  "thread.send": {
    name: "t3_escrever_thread_send",
    destructive: true,
    notes:
      "Delivery is explicit: steer_active, start_immediately, restart_active (interrupts the current attempt) or queue_after_active. It never answers a pending request; use the runtime-request tools.",
  },
  "thread.metadata.update": {
    name: "t3_escrever_thread_metadata_update",
    destructive: true,
    notes: "regenerateTitle asks T3 for a title; expectedWorktreePath guards against a concurrent change.",
  },
  "thread.pull-request.link": {
    name: "t3_escrever_thread_pull_request_link",
    notes: "Needs host, repository, number and url.",
  },
  "thread.pull-request.unlink": { name: "t3_escrever_thread_pull_request_unlink" },
  "thread.pull-request.watch": {
    name: "t3_escrever_thread_pull_request_watch",
    notes:
      "watching: true starts, false stops; link {url, source} links an unlinked pull request in the same command. Needs a T3 that accepts thread.pull-request.watch.",
  },
  "thread.fork": {
    name: "t3_escrever_thread_fork",
    notes: "sourcePoint is latest_stable, a run or a checkpoint.",
  },
  "thread.merge_back": {
    name: "t3_escrever_thread_merge_back",
    destructive: true,
    notes: "Merges sourceThreadId (from sourcePoint) into targetThreadId.",
  },
  "delegated_task.request": {
    name: "t3_escrever_delegated_task_request",
    notes:
      "The child thread hangs off parentThreadId and the run's node. Without runtimeMode it runs at the lease's ceiling (the result says which).",
  },
  "delegated_task.wake-policy": {
    name: "t3_escrever_delegated_task_wake_policy",
    notes: "always or settled_only.",
  },
  "delegated_task.completion-delivery.acknowledge": {
    name: "t3_escrever_delegated_task_completion_delivery_acknowledge",
    notes: "observedByRunId is the run that saw it, or null.",
  },
  "delegated_task.completion-delivery.dispose": {
    name: "t3_escrever_delegated_task_completion_delivery_dispose",
    destructive: true,
  },
  "project.create": {
    name: "t3_escrever_project_create",
    notes:
      "workspaceRoot: an absolute folder under one of the environment's projectRoots (none configured: refused). createWorkspaceRootIfMissing: true makes a missing folder. The lease must have been approved for this exact workspaceRoot and createWorkspaceRootIfMissing (name them in t3_pedir_aprovacao's projectWrites), else scope_denied. The result's receipt names the new projectId.",
  },
  "project.meta.update": {
    name: "t3_escrever_project_meta_update",
    notes:
      "Name at least one of title, workspaceRoot, defaultModelSelection. workspaceRoot (a move): an existing absolute folder under one of the environment's projectRoots; the lease must have been approved for this exact projectId and workspaceRoot (name them in t3_pedir_aprovacao's projectWrites), else scope_denied. A rename needs no such approval.",
  },
  "project.delete": {
    name: "t3_escrever_project_delete",
    destructive: true,
    notes:
      "Refused (project_not_empty, with threadCount) while the project holds any live or archived thread; force: true deletes those threads with it, and needs a lease approved for that forced delete (t3_pedir_aprovacao's projectWrites), else scope_denied.",
  },
  "thread.conditional-send": { name: "t3_escrever_thread_conditional_send" },
  "threads.batch": { name: "t3_escrever_threads_batch" },
} as const satisfies ToolTable;

/** The four MCP tool hints of one write tool, all explicit. */
export interface WriteAnnotations {
  readonly readOnlyHint: false;
  readonly destructiveHint: boolean;
  /** Every write is deduplicated by `(environment, operationId)` and by derived T3 ids. */
  readonly idempotentHint: true;
  /** The effect is confined to one known T3 environment. */
  readonly openWorldHint: false;
}

/** The row of one action (or of the conditional send) by its id. */
export function writeToolRow(action: keyof typeof WRITE_TOOL_TABLE): WriteToolRow {
  return WRITE_TOOL_TABLE[action];
}

export function writeToolAnnotations(row: WriteToolRow): WriteAnnotations {
  return {
    readOnlyHint: false,
    destructiveHint: row.destructive === true,
    idempotentHint: true,
    openWorldHint: false,
  };
}
