import { ACTIVE_RUN_STATUSES, TERMINAL_RUN_STATUSES as TERMINAL_RUNS } from "../run-status.js";
import { activeRunFromShell } from "./active-run.js";
import {
  SECRET_REQUEST_KIND,
  SECRET_REQUEST_NEXT_ACTION,
  SECRET_REQUEST_REASON,
  type SecretRequestNextAction,
  type SecretRequestRef,
  shellSecretRequest,
} from "./secret-requests.js";
import type { ShellThreadInput } from "./types.js";

/** The canonical states (also the `state` filter of `t3_threads`). */
export const THREAD_STATES = [
  "running",
  "needs_intervention",
  "completed",
  "failed",
  "cancelled",
  "no_run",
  "unknown",
] as const;
export type ThreadState = (typeof THREAD_STATES)[number];

/** The signal that decided `state`. */
export type StateSource =
  | "pending_request"
  /** Newer servers: a secret the agent asked for, answered only in T3's own app. */
  | "secret_request"
  | "active_run"
  | "usage_limit"
  | "proposed_plan"
  | "latest_run"
  | "no_run";

export type InterventionKind = string;

export type StateIdentifier =
  | { runtimeRequestId: string | null }
  | { secretRequestId: string | null }
  | { runId: string | null };

export interface BackgroundTask {
  kind: string | null;
  taskId: string | null;
  description: string | null;
}

/** The state fields every thread summary carries. */
export interface ThreadStateFields {
  state: ThreadState;
  stateSource: StateSource;
  /** Status of the run `state` refers to (`idle` when there is none). */
  statusRun: string | null;
  /** The run `state` refers to. */
  runId: string | null;
  /** Informational: the newest run, present only when it is not the run `state` describes. */
  latestRunId?: string;
  latestRunStatus?: string | null;
  note?: string;
  /** Intervention fields (`needs_intervention`). */
  reason?: string;
  kind?: InterventionKind;
  identifier?: StateIdentifier;
  since?: string | null;
  /** `usage_limit`, or `failed` on a usage limit (newer servers): when the limit resets. */
  resetAt?: string | null;
  /** `running` with an automatic usage-limit resume: when it resumes. */
  resumeAt?: string | null;
  /** `completed` with background work still reported by the shell. */
  backgroundTasks?: BackgroundTask[];
  /** `failed`. */
  error?: string | null;
  errorClass?: string | null;
  /** `secret_request`: answered in T3 itself, never through the connector. */
  nextAction?: SecretRequestNextAction;
}

/** A pending request already known from the projection (rule 1b); `pendingRequests()` entries fit. */
export interface PendingRequestRef {
  runtimeRequestId: string | null;
  kind: string | null;
  since: string | null;
}

/** Run statuses that mean "work is still going on" even without an active-run marker. */
export const WORKING_RUN_STATUSES: ReadonlySet<string> = new Set(ACTIVE_RUN_STATUSES);

/** Run statuses after which a run never changes again. */
export const TERMINAL_RUN_STATUSES: ReadonlySet<string> = new Set(TERMINAL_RUNS);

const CANCELLED_RUN_STATUSES: ReadonlySet<string> = new Set(["cancelled", "interrupted", "rolled_back"]);

const REQUEST_REASONS: Readonly<Record<string, string>> = {
  command: "command approval",
  "file-read": "file read approval",
  "file-change": "file change approval",
  permission: "permission approval",
  "mcp-elicitation": "MCP tool asking for data",
  user_input: "question waiting for an answer",
  dynamic_tool_call: "tool call waiting for a response",
  auth_refresh: "provider asking to authenticate again",
};

/** The human reason of a pending runtime request, by kind. */
export function requestReason(kind: string | null | undefined): string {
  const known = kind ? REQUEST_REASONS[kind] : undefined;
  return known ?? `pending request of kind ${kind ?? "unknown"}`;
}

// The contract names a reason only for request kinds; the two other intervention kinds get their own
// so that every `needs_intervention` summary carries one (the seed says intervention adds `reason`).
const USAGE_LIMIT_REASON = "usage limit reached; no automatic resume";
const PROPOSED_PLAN_REASON = "proposed plan waiting for a decision";

function oldest(pending: readonly PendingRequestRef[]): PendingRequestRef | undefined {
  let best: PendingRequestRef | undefined;
  let bestMs = Number.POSITIVE_INFINITY;
  for (const request of pending) {
    const ms = request.since === null ? Number.NaN : Date.parse(request.since);
    // Unparsable times sort last; ties keep the earlier entry.
    const key = Number.isFinite(ms) ? ms : Number.MAX_SAFE_INTEGER;
    if (best === undefined || key < bestMs) {
      best = request;
      bestMs = key;
    }
  }
  return best;
}

function errorFields(thread: ShellThreadInput): { error: string | null; errorClass: string | null } {
  const raw = thread.lastError;
  if (typeof raw === "string") return { error: raw, errorClass: thread.lastErrorClass ?? null };
  if (raw !== null && typeof raw === "object") {
    const failure = raw as { message?: unknown; class?: unknown };
    return {
      error: typeof failure.message === "string" ? failure.message : null,
      errorClass: thread.lastErrorClass ?? (typeof failure.class === "string" ? failure.class : null),
    };
  }
  return { error: null, errorClass: thread.lastErrorClass ?? null };
}

function backgroundTasks(thread: ShellThreadInput): BackgroundTask[] {
  return (thread.pendingBackgroundTasks ?? []).map((task) => ({
    kind: task.taskType ?? task.kind ?? null,
    taskId: task.taskId ?? null,
    description: task.description ?? null,
  }));
}

/**
 * Sources of truth: the first matching signal wins —
 * pending request, pending secret request, active run, usage limit or proposed plan, then the latest run's outcome.
 * `pending` are the projection's pending requests, passed by the thread read (rule 1b).
 * Unknown run statuses never throw: they give `unknown` (unless an active run is reported).
 */
export function threadState(
  thread: ShellThreadInput,
  pending: readonly PendingRequestRef[] = [],
  secrets: readonly SecretRequestRef[] = [],
): ThreadStateFields {
  const active = activeRunFromShell(thread);
  const { base, notes } = runFields(thread, active);
  const fields =
    requestState(thread, pending, secrets, base) ??
    liveRunState(thread, active, base, notes) ??
    outcomeState(thread, base);
  if (notes.length > 0) fields.note = notes.join(" ");
  return fields;
}

type ActiveRun = ReturnType<typeof activeRunFromShell>;
type RunFields = Pick<ThreadStateFields, "statusRun" | "runId" | "latestRunId" | "latestRunStatus" | "note">;

/** The run `state` describes (the active one, else the newest), and the notes about the other. */
function runFields(thread: ShellThreadInput, active: ActiveRun): { base: RunFields; notes: string[] } {
  const latestRunId = thread.latestRunId ?? null;
  const base: RunFields = {
    statusRun: active ? active.status : (thread.status ?? null),
    runId: active ? active.runId : latestRunId,
  };
  // The contract has one `note` field; when both notes apply (newest run differs AND waiting) they
  // are joined into one sentence pair rather than one hiding the other.
  const notes: string[] = [];
  if (active && latestRunId && latestRunId !== active.runId) {
    base.latestRunId = latestRunId;
    base.latestRunStatus = thread.status ?? null;
    notes.push(
      `The newest run ${latestRunId} is ${thread.status ?? "of unknown status"}; state follows the active run, which continues.`,
    );
  }
  return { base, notes };
}

/** A pending runtime request (the shell's, else the projection's oldest), then a secret request. */
function requestState(
  thread: ShellThreadInput,
  pending: readonly PendingRequestRef[],
  secrets: readonly SecretRequestRef[],
  base: RunFields,
): ThreadStateFields | undefined {
  const shellRequest = thread.pendingRuntimeRequest;
  if (shellRequest) {
    return {
      state: "needs_intervention",
      stateSource: "pending_request",
      ...base,
      reason: requestReason(shellRequest.kind),
      kind: shellRequest.kind ?? "unknown",
      identifier: { runtimeRequestId: shellRequest.id ?? null },
      since: shellRequest.createdAt ?? null,
    };
  }
  const projectionRequest = oldest(pending);
  if (projectionRequest) {
    return {
      state: "needs_intervention",
      stateSource: "pending_request",
      ...base,
      reason: requestReason(projectionRequest.kind),
      kind: projectionRequest.kind ?? "unknown",
      identifier: { runtimeRequestId: projectionRequest.runtimeRequestId },
      since: projectionRequest.since,
    };
  }
  // After runtime requests (which a write can answer), before the run: it also needs a person.
  const secret = shellSecretRequest(thread) ?? secrets[0];
  if (!secret) return undefined;
  return {
    state: "needs_intervention",
    stateSource: "secret_request",
    ...base,
    reason: secret.name ? `${SECRET_REQUEST_REASON} (${secret.name})` : SECRET_REQUEST_REASON,
    kind: SECRET_REQUEST_KIND,
    identifier: { secretRequestId: secret.secretRequestId },
    since: secret.since,
    nextAction: { ...SECRET_REQUEST_NEXT_ACTION },
  };
}

/** A run still working, else a usage limit without automatic resume, else a plan awaiting a decision. */
function liveRunState(
  thread: ShellThreadInput,
  active: ActiveRun,
  base: RunFields,
  notes: string[],
): ThreadStateFields | undefined {
  const status = base.statusRun ?? null;
  const recovery = thread.limitRecovery ?? null;
  if (active || (status !== null && WORKING_RUN_STATUSES.has(status))) {
    if (status === "waiting") notes.push("The run is waiting and no pending request is visible.");
    const fields: ThreadStateFields = {
      state: "running",
      stateSource: active ? "active_run" : "latest_run",
      ...base,
    };
    if (recovery?.autoResume === true) fields.resumeAt = recovery.resumeAt ?? null;
    return fields;
  }
  // "Without automatic resume": a record that does not say `autoResume: true` is treated as manual,
  // the safe reading (the user is asked rather than told the thread will resume by itself).
  if (recovery && recovery.autoResume !== true) {
    return {
      state: "needs_intervention",
      stateSource: "usage_limit",
      ...base,
      reason: USAGE_LIMIT_REASON,
      kind: "usage_limit",
      identifier: { runId: recovery.runId ?? null },
      since: null,
      resetAt: recovery.resetAt ?? thread.usageLimitResetAt ?? null,
    };
  }
  if (thread.hasActionableProposedPlan !== true) return undefined;
  return {
    state: "needs_intervention",
    stateSource: "proposed_plan",
    ...base,
    reason: PROPOSED_PLAN_REASON,
    kind: "proposed_plan",
    identifier: { runId: thread.latestRunId ?? null },
    since: thread.latestRunCompletedAt ?? null,
  };
}

/** The finished run's outcome: completed, failed, cancelled, never ran, or a status not known. */
function outcomeState(thread: ShellThreadInput, base: RunFields): ThreadStateFields {
  const status = base.statusRun ?? null;
  if (status === "completed") {
    const fields: ThreadStateFields = { state: "completed", stateSource: "latest_run", ...base };
    const tasks = backgroundTasks(thread);
    if (tasks.length > 0) fields.backgroundTasks = tasks;
    return fields;
  }
  if (status === "failed") {
    const fields: ThreadStateFields = {
      state: "failed",
      stateSource: "latest_run",
      ...base,
      ...errorFields(thread),
    };
    // Newer servers say when a usage limit resets; older ones do not, and then nothing is added.
    if (thread.usageLimitResetAt) fields.resetAt = thread.usageLimitResetAt;
    return fields;
  }
  if (status !== null && CANCELLED_RUN_STATUSES.has(status)) {
    return { state: "cancelled", stateSource: "latest_run", ...base };
  }
  if (status === "idle") return { state: "no_run", stateSource: "no_run", ...base, runId: null };
  return { state: "unknown", stateSource: "latest_run", ...base };
}
