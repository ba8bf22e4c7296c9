import {
  type LatestResponse,
  latestResponse,
  type ShellThreadInput,
  type StateSource,
  type ThreadState,
  threadState,
} from "@t3-connector/core/state";
import type { ThreadShell } from "@t3-connector/core/t3";
import { type FollowedRun, isTerminalStatus, type WaitReturnReason } from "./followed-run.js";
import type { ObservedThread } from "./observed-thread.js";

export interface WaitPendingRequest {
  runtimeRequestId: string | null;
  kind: string;
  reason: string;
  since: string | null;
}

export interface WaitResult {
  environment: { alias: string; environmentId: string };
  projectId: string;
  threadId: string;
  title: string;
  runId: string | null;
  statusRun: string | null;
  state: ThreadState;
  stateSource: StateSource;
  terminal: boolean;
  timedOut: boolean;
  returnReason: WaitReturnReason;
  pendingRequest: WaitPendingRequest | null;
  observedAt: string;
  elapsedMs: number;
  timeoutMs: number;
  latestResponse?: LatestResponse | null;
  subscriptionError?: { code: string; message: string };
}

export interface WaitResultInput {
  environment: { alias: string; environmentId: string };
  thread: ThreadShell;
  followed: FollowedRun;
  /** Absent when the wait answered from the shell alone. */
  observed: ObservedThread | undefined;
  reason: WaitReturnReason;
  observedAt: string;
  elapsedMs: number;
  timeoutMs: number;
  /** Set when the caller asked for the latest response (then it is always present, maybe null). */
  maxCharacters: number | undefined;
  subscriptionError?: { code: string; message: string };
}

/**
 * The shell row as it stands for the followed run after the wait. The shell was read before the
 * wait; the stream told what happened to the run since, so the run fields are pinned to it
 * (state, `runId` and `statusRun` then describe the run that was waited on) and the projection's
 * requests replace the shell's older summary. Flags about the newest run (plan, usage limit)
 * carry over only when the followed run is that run.
 */
function rowAfterWait(thread: ThreadShell, followed: FollowedRun, observed: ObservedThread | undefined) {
  const row: ShellThreadInput = { ...(thread as ShellThreadInput) };
  if (observed?.snapshotSeen) row.pendingRuntimeRequest = null;
  if (followed.runId === null) return row;
  const ended = isTerminalStatus(followed.status);
  const sameAsNewest = followed.runId === thread.latestRunId;
  row.latestRunId = followed.runId;
  row.status = followed.status;
  row.activeRunId = ended || followed.status === "waiting" ? null : followed.runId;
  row.activityRunStatus = ended ? null : followed.status;
  const recovery = row.limitRecovery;
  if (recovery && recovery.runId !== followed.runId) row.limitRecovery = null;
  row.hasActionableProposedPlan = observed?.snapshotSeen
    ? followed.status === "completed" && observed.hasActionablePlan(followed.runId)
    : sameAsNewest && thread.hasActionableProposedPlan === true;
  if (!sameAsNewest) row.lastError = null;
  return row;
}

export function buildWaitResult(input: WaitResultInput): WaitResult {
  const { thread, followed, observed } = input;
  const pending = observed?.snapshotSeen ? observed.pendingRequests() : [];
  const state = threadState(rowAfterWait(thread, followed, observed), pending);
  const terminal = isTerminalStatus(followed.status);
  const pendingRequest: WaitPendingRequest | null =
    state.stateSource === "pending_request"
      ? {
          runtimeRequestId:
            state.identifier && "runtimeRequestId" in state.identifier
              ? state.identifier.runtimeRequestId
              : null,
          kind: state.kind ?? "unknown",
          reason: state.reason ?? "",
          since: state.since ?? null,
        }
      : null;
  const result: WaitResult = {
    environment: input.environment,
    projectId: thread.projectId,
    threadId: thread.id,
    title: thread.title,
    runId: followed.runId,
    statusRun: followed.status,
    state: state.state,
    stateSource: state.stateSource,
    terminal,
    timedOut: input.reason === "timeout" && !terminal,
    returnReason: input.reason,
    pendingRequest,
    observedAt: input.observedAt,
    elapsedMs: input.elapsedMs,
    timeoutMs: input.timeoutMs,
  };
  if (input.maxCharacters !== undefined) {
    // Filtered to the followed run: an older run's answer must not pass for this one's.
    const messages = observed && followed.runId !== null ? observed.messagesOf(followed.runId) : [];
    result.latestResponse = latestResponse({ messages }, input.maxCharacters);
  }
  if (input.subscriptionError) result.subscriptionError = input.subscriptionError;
  return result;
}
