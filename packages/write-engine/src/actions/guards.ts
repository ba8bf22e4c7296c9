/**
 * Pre-send checks, declared as data on each action and run by the gate after its fresh reads.
 * The checks that need only the input, the fresh shell row and the lease are evaluated here;
 * `model_selection_offered` needs a fresh `server.getConfig` and is evaluated by the gate.
 */
import { ACTIVE_RUN_STATUSES, ConnectorError, type ErrorCode } from "@t3-connector/core";
// The tools that answer a pending request are named where a thread's next action is projected, so
// that a refusal here and a read's nextAction can never name different tools.
import { ANSWER_REQUEST_TOOL, APPROVE_REQUEST_TOOL } from "@t3-connector/core/state";

/** The write tool that resolves a pending runtime request of a kind, or null: inspect it in T3. */
export interface AnswerRoute {
  readonly action: "runtime-request.answer" | "runtime-request.approve";
  readonly tool: typeof ANSWER_REQUEST_TOOL | typeof APPROVE_REQUEST_TOOL;
  readonly responseField: "answers" | "decision";
}
const ANSWER: AnswerRoute = {
  action: "runtime-request.answer",
  tool: ANSWER_REQUEST_TOOL,
  responseField: "answers",
};
const APPROVE: AnswerRoute = {
  action: "runtime-request.approve",
  tool: APPROVE_REQUEST_TOOL,
  responseField: "decision",
};
/** Runtime request kinds and how each is answered. */
export const ANSWER_ROUTE_BY_KIND: Readonly<Record<string, AnswerRoute | null>> = {
  user_input: ANSWER,
  command: APPROVE,
  "file-read": APPROVE,
  "file-change": APPROVE,
  permission: APPROVE,
  "mcp-elicitation": APPROVE,
  dynamic_tool_call: null,
  auth_refresh: null,
};

/** `clientRequestId` must equal the envelope's `operationId`. */
export interface RequestIdGuard {
  readonly kind: "client_request_id_equals_operation_id";
  readonly field: "clientRequestId";
  readonly code: "invalid_input";
  readonly reason: "request_id_mismatch";
}

/** Refuse when the thread has a run in flight, unless the input sets `overrideField: true`. */
export interface NoActiveRunGuard {
  readonly kind: "no_active_run";
  readonly threadField: string;
  readonly overrideField: string;
  readonly activeStatuses: readonly string[];
  readonly code: "guard_refused";
  readonly reason: "thread_run_active";
}

/** Refuse when the thread waits on an approval or a question; the refusal names the answer tool. */
export interface NoPendingRequestGuard {
  readonly kind: "no_pending_request";
  readonly threadField: string;
  /** Null: no override exists (a send would queue behind the request and both would wait). */
  readonly overrideField: string | null;
  readonly code: "guard_refused";
  readonly reason: "thread_pending_request";
}

/** What both config guards check of the provider, in this order (the first failure is the reason). */
const PROVIDER_REASONS = [
  "model_capabilities_unavailable",
  "provider_instance_unavailable",
  "provider_not_ready",
  "provider_model_unavailable",
] as const;
type ProviderReasons = typeof PROVIDER_REASONS;

/** The selection must be offered by a `server.getConfig` read fresh for this write. */
export interface ModelSelectionGuard {
  readonly kind: "model_selection_offered";
  readonly path: readonly string[];
  readonly source: "server.getConfig";
  readonly code: "guard_refused";
  /** Checked in this order; the first failure is the refusal reason. */
  readonly reasons: readonly [
    ...ProviderReasons,
    "model_option_unsupported",
    "model_option_value_unsupported",
    "model_capabilities_unknown",
  ];
}

/**
 * The thread's own provider (its `modelSelection`, read fresh) must be offered, ready and still
 * list its model in a `server.getConfig` read for this write: a message to a thread whose provider
 * T3 reports as not ready would start a run that cannot work. Options are not checked again.
 */
export interface ThreadProviderGuard {
  readonly kind: "thread_provider_ready";
  readonly threadField: string;
  readonly source: "server.getConfig";
  readonly code: "guard_refused";
  readonly reasons: ProviderReasons;
}

/**
 * A workspace path (when present and not null) must be absolute, normalised and equal to an
 * approved `workspaceRoots` entry of the lease's projects; the gate then verifies it where the
 * environment runs (realpath) before sending.
 */
export interface WorkspaceGuard {
  readonly kind: "workspace_path_approved";
  readonly path: readonly string[];
  readonly code: "scope_denied";
  readonly reasons: {
    readonly outside: "workspace_scope_denied";
    readonly unverified: "workspace_verification_required";
  };
}

/**
 * A project's workspace folder (when present) must lie under a root the environment's config
 * allows (`projectRoots`), resolved without following a symlink out of it (ADR 0074). Checked in
 * the preflight, on the file system of the machine the environment runs on.
 */
export interface WorkspaceRootGuard {
  readonly kind: "workspace_root_confined";
  readonly path: readonly string[];
  /** The input field that asks T3 to make a missing folder. */
  readonly createField: string | null;
  readonly code: "workspace_root_refused";
}

/**
 * The project must hold no live or archived thread, counted fresh right before the send, unless
 * the input says `force` (then the count is what the person was told would go).
 */
export interface ProjectEmptyGuard {
  readonly kind: "project_empty_unless_forced";
  readonly projectField: string;
  readonly forceField: string;
  readonly code: "project_not_empty";
}

export type Guard =
  | RequestIdGuard
  | NoActiveRunGuard
  | NoPendingRequestGuard
  | ModelSelectionGuard
  | ThreadProviderGuard
  | WorkspaceGuard
  | WorkspaceRootGuard
  | ProjectEmptyGuard;

export const REQUEST_ID_GUARD: RequestIdGuard = {
  kind: "client_request_id_equals_operation_id",
  field: "clientRequestId",
  code: "invalid_input",
  reason: "request_id_mismatch",
};

export function noActiveRun(overrideField: string): NoActiveRunGuard {
  return {
    kind: "no_active_run",
    threadField: "threadId",
    overrideField,
    activeStatuses: ACTIVE_RUN_STATUSES,
    code: "guard_refused",
    reason: "thread_run_active",
  };
}

export function noPendingRequest(overrideField: string | null): NoPendingRequestGuard {
  return {
    kind: "no_pending_request",
    threadField: "threadId",
    overrideField,
    code: "guard_refused",
    reason: "thread_pending_request",
  };
}

export const MODEL_SELECTION_GUARD: ModelSelectionGuard = {
  kind: "model_selection_offered",
  path: ["modelSelection"],
  source: "server.getConfig",
  code: "guard_refused",
  reasons: [
    ...PROVIDER_REASONS,
    "model_option_unsupported",
    "model_option_value_unsupported",
    "model_capabilities_unknown",
  ],
};

export const THREAD_PROVIDER_GUARD: ThreadProviderGuard = {
  kind: "thread_provider_ready",
  threadField: "threadId",
  source: "server.getConfig",
  code: "guard_refused",
  reasons: PROVIDER_REASONS,
};

export function workspacePath(...path: string[]): WorkspaceGuard {
  return {
    kind: "workspace_path_approved",
    path,
    code: "scope_denied",
    reasons: { outside: "workspace_scope_denied", unverified: "workspace_verification_required" },
  };
}

/** The value at `path` inside a parsed input, or undefined. */
export function valueAtPath(input: unknown, path: readonly string[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** The fields of a fresh shell thread row the thread-state guards read. */
export interface ThreadStateView {
  readonly status: string;
  readonly activeRunId: string | null;
  readonly pendingRuntimeRequest: { readonly id: string; readonly kind: string } | null;
}

export interface GuardContext {
  readonly operationId: string;
  /** The fresh shell row of a target thread (the gate has already refused a missing one). */
  thread(threadId: string): ThreadStateView | undefined;
  /** Approved `workspaceRoots` of the lease's projects for this environment. */
  readonly approvedWorkspaceRoots: readonly string[];
}

function refuse(code: ErrorCode, reason: string, message: string, details: Record<string, unknown> = {}) {
  return new ConnectorError(code, message, { details: { reason, ...details } });
}

/** Absolute and already normalised: no `.`/`..`/empty segments, no trailing slash. */
export function isNormalizedAbsolutePath(path: string): boolean {
  if (!path.startsWith("/")) return false;
  if (path === "/") return true;
  return path
    .slice(1)
    .split("/")
    .every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

/**
 * Evaluates every guard that needs no T3 config read. Returns the first refusal, or null when
 * all pass (model-selection guards are skipped: the gate checks them against `server.getConfig`).
 */
export function checkLocalGuards(
  guards: readonly Guard[],
  input: unknown,
  context: GuardContext,
): ConnectorError | null {
  for (const guard of guards) {
    const refusal = checkOne(guard, input, context);
    if (refusal !== null) return refusal;
  }
  return null;
}

function checkOne(guard: Guard, input: unknown, context: GuardContext): ConnectorError | null {
  switch (guard.kind) {
    case "client_request_id_equals_operation_id": {
      const value = valueAtPath(input, [guard.field]);
      return value === context.operationId
        ? null
        : refuse(guard.code, guard.reason, "clientRequestId must equal operationId");
    }
    case "no_active_run": {
      if (valueAtPath(input, [guard.overrideField]) === true) return null;
      const threadId = String(valueAtPath(input, [guard.threadField]));
      const thread = context.thread(threadId);
      if (thread === undefined) return refuse("thread_not_found", "thread_not_found", "thread not found");
      const active = thread.activeRunId !== null || guard.activeStatuses.includes(thread.status);
      if (!active) return null;
      return refuse(
        guard.code,
        guard.reason,
        `thread has a run in flight (status ${thread.status}); set ${guard.overrideField}: true to send anyway`,
        {
          threadId,
          status: thread.status,
          activeRunId: thread.activeRunId,
          overrideField: guard.overrideField,
        },
      );
    }
    case "no_pending_request": {
      if (guard.overrideField !== null && valueAtPath(input, [guard.overrideField]) === true) return null;
      const threadId = String(valueAtPath(input, [guard.threadField]));
      const thread = context.thread(threadId);
      if (thread === undefined) return refuse("thread_not_found", "thread_not_found", "thread not found");
      const pending = thread.pendingRuntimeRequest;
      if (pending === null) return null;
      const route = ANSWER_ROUTE_BY_KIND[pending.kind] ?? null;
      const how =
        route === null ? "inspect it in T3" : `answer it with ${route.tool} (${route.responseField})`;
      return refuse(
        guard.code,
        guard.reason,
        `thread waits on a ${pending.kind} request ${pending.id}: ${how}`,
        {
          threadId,
          requestId: pending.id,
          requestKind: pending.kind,
          answerAction: route?.action ?? null,
          answerTool: route?.tool ?? null,
          responseField: route?.responseField ?? null,
          overrideField: guard.overrideField,
        },
      );
    }
    case "workspace_path_approved": {
      const value = valueAtPath(input, guard.path);
      if (value === undefined || value === null) return null;
      const path = String(value);
      if (isNormalizedAbsolutePath(path) && context.approvedWorkspaceRoots.includes(path)) return null;
      return refuse(guard.code, guard.reasons.outside, "workspace path is not an approved workspace root", {
        path: guard.path.join("."),
      });
    }
    // These read T3 or the file system: the preflight runs them (dispatch/project-checks.ts).
    case "model_selection_offered":
    case "thread_provider_ready":
    case "workspace_root_confined":
    case "project_empty_unless_forced":
      return null;
  }
}
