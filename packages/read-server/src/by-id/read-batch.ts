import { ConnectorError, isConnectorError } from "@t3-connector/core";
import type { EnvironmentHandle } from "@t3-connector/core/environments";
import { classifyFailure, readWithRetry, stopOnAbort } from "@t3-connector/core/fanout";
import type { ShellSnapshot } from "@t3-connector/core/t3";
import { buildThreadRead, type ThreadDetailOptions } from "@t3-connector/mcp-tools/read-answers";
import type { ThreadReadOutput } from "@t3-connector/mcp-tools/read-contracts";
import { deadlinesOf, type ReadContext } from "../read-context.js";
import { projectAclOf } from "../scope/project-acl.js";
import { shellListing } from "./shell-listing.js";
import { threadNotFoundIn } from "./thread-errors.js";
import { fetchThreadProjection } from "./thread-projection.js";
import { findVisibleThread } from "./visible-thread.js";

/** Projections read at the same time in one environment. */
export const BATCH_PROJECTIONS_PER_ENVIRONMENT = 4;
export const BATCH_MAX_TARGETS = 20;
export const BATCH_TIMEOUT_MS = { min: 1_000, max: 30_000, default: 10_000 } as const;

/** Codes that are an answer, not a failure: rereading the item would give the same result. */
const FINAL_CODES: ReadonlySet<string> = new Set(["thread_not_found", "environment_not_allowed"]);

export interface BatchTarget {
  environment: string;
  threadId: string;
}

export interface BatchItemError {
  code: string;
  reason: string;
}

export interface BatchItem {
  index: number;
  environment: { alias: string; environmentId: string } | null;
  requestedEnvironment?: string;
  threadId: string;
  status: "ok" | "error";
  observedAt?: string;
  thread?: ThreadReadOutput;
  error?: BatchItemError;
}

export interface BatchEnvironment {
  alias: string;
  environmentId: string;
  status: "ok" | "error";
  observedAt?: string;
  error?: BatchItemError;
}

export interface BatchResult {
  returned: number;
  summary: { ok: number; error: number };
  allSucceeded: boolean;
  complete: boolean;
  environments: BatchEnvironment[];
  items: BatchItem[];
}

export interface BatchOptions extends ThreadDetailOptions {
  /** Deadline of the whole call. */
  timeoutMs: number;
  signal: AbortSignal;
}

type ThreadOutcome = { ok: true; thread: ThreadReadOutput } | { ok: false; error: BatchItemError };

interface EnvironmentGroup {
  handle: EnvironmentHandle;
  /** Unique thread ids of this environment, in first-appearance order. */
  threadIds: string[];
}

interface GroupOutcome {
  environment: BatchEnvironment;
  threads: Map<string, ThreadOutcome>;
}

const CALL_DEADLINE = Symbol("batch deadline");
const ENVIRONMENT_DEADLINE = Symbol("environment deadline");

/**
 * Reads up to 20 threads named by `{environment, threadId}`. Each environment is read from ONE
 * shell observation shared by its items (so their states are judged at the same instant), then
 * each distinct thread's projection, at most four at a time per environment; environments run in
 * parallel. Every failure after admission stays in its item; only the caller's cancellation
 * aborts the call.
 */
export async function readThreadBatch(
  context: ReadContext,
  targets: readonly BatchTarget[],
  options: BatchOptions,
): Promise<BatchResult> {
  const callerSignal = options.signal;
  if (callerSignal.aborted) throw cancelled();
  const deadline = deadlinesOf(context).start(options.timeoutMs, CALL_DEADLINE, {});
  const signal = AbortSignal.any([callerSignal, deadline.signal]);

  const { handles, groups } = groupByEnvironment(context, targets);
  let outcomes: Map<string, GroupOutcome>;
  try {
    const read = [...groups.values()].map((group) => readGroup(context, group, options, signal));
    const settled = await stopOnAbort(Promise.all(read), callerSignal);
    outcomes = new Map(settled.map((outcome) => [outcome.environment.environmentId, outcome]));
  } catch (error) {
    if (callerSignal.aborted) throw cancelled();
    throw error;
  } finally {
    deadline.clear();
  }

  const items = targets.map((target, index) => {
    const handle = handles[index];
    return itemOf(context, index, target, handle, handle && outcomes.get(handle.environmentId));
  });
  const errors = items.filter((item) => item.status === "error");
  return {
    returned: items.length,
    summary: { ok: items.length - errors.length, error: errors.length },
    allSucceeded: errors.length === 0,
    complete: errors.every((item) => FINAL_CODES.has(item.error?.code ?? "")),
    environments: [...outcomes.values()]
      .map((outcome) => outcome.environment)
      .sort((a, b) => compare(a.environmentId, b.environmentId)),
    items,
  };
}

/**
 * Resolves each target's environment (alias or environmentId) and collects the distinct thread
 * ids per environment: alias and id name the same environment, so a repeated target is read once.
 */
function groupByEnvironment(
  context: ReadContext,
  targets: readonly BatchTarget[],
): { handles: Array<EnvironmentHandle | undefined>; groups: Map<string, EnvironmentGroup> } {
  const groups = new Map<string, EnvironmentGroup>();
  const handles = targets.map((target) => {
    const handle = context.registry.find(target.environment);
    if (handle === undefined) return undefined;
    const group = groups.get(handle.environmentId) ?? { handle, threadIds: [] };
    if (!group.threadIds.includes(target.threadId)) group.threadIds.push(target.threadId);
    groups.set(handle.environmentId, group);
    return handle;
  });
  return { handles, groups };
}

function itemOf(
  context: ReadContext,
  index: number,
  target: BatchTarget,
  handle: EnvironmentHandle | undefined,
  outcome: GroupOutcome | undefined,
): BatchItem {
  if (handle === undefined || outcome === undefined) {
    const aliases = context.registry.environments.map((entry) => entry.alias);
    return {
      index,
      environment: null,
      requestedEnvironment: target.environment,
      threadId: target.threadId,
      status: "error",
      error: {
        code: "environment_not_allowed",
        reason: `environment "${target.environment}" is not configured; configured: ${aliases.join(", ")}`,
      },
    };
  }
  const environment = { alias: handle.alias, environmentId: handle.environmentId };
  const observed = outcome.environment.observedAt ? { observedAt: outcome.environment.observedAt } : {};
  const thread = outcome.threads.get(target.threadId);
  if (thread === undefined) {
    // The environment's shell failed: every item there carries that failure.
    const error = outcome.environment.error ?? { code: "failed", reason: "the read failed unexpectedly" };
    return { index, environment, threadId: target.threadId, status: "error", ...observed, error };
  }
  if (!thread.ok)
    return {
      index,
      environment,
      threadId: target.threadId,
      status: "error",
      ...observed,
      error: thread.error,
    };
  return { index, environment, threadId: target.threadId, status: "ok", ...observed, thread: thread.thread };
}

async function readGroup(
  context: ReadContext,
  group: EnvironmentGroup,
  options: ThreadDetailOptions,
  signal: AbortSignal,
): Promise<GroupOutcome> {
  const { handle } = group;
  const base = { alias: handle.alias, environmentId: handle.environmentId };
  let shell: ShellSnapshot;
  let observedMs: number;
  try {
    const answer = await withEnvironmentDeadline(context, handle.alias, signal, (readSignal) =>
      readWithRetry(
        handle,
        (connection, own) =>
          // Every target listed, from the mirror or else T3 itself (a new thread may not be mirrored yet).
          shellListing(context, connection, own, (candidate) => {
            const listed = new Set(
              [...candidate.threads, ...candidate.archivedThreads].map((thread) => thread.id),
            );
            return group.threadIds.every((threadId) => listed.has(threadId));
          }),
        readSignal,
      ),
    );
    shell = answer.value;
    observedMs = context.clock.now();
  } catch (error) {
    return { environment: { ...base, status: "error", error: failureOf(error) }, threads: new Map() };
  }
  const observedAt = new Date(observedMs).toISOString();
  const allowed = await projectAclOf(context, handle.environmentId).allowedIn(shell.projects);
  const threads = new Map<string, ThreadOutcome>();

  // Nothing starts once the call's deadline has passed (core's fanOut does the same): a read
  // begun then would only fail later, with nobody waiting for it.
  await forEachLimited(group.threadIds, BATCH_PROJECTIONS_PER_ENVIRONMENT, signal, async (threadId) => {
    const visible = findVisibleThread(shell, threadId, allowed);
    if (visible === undefined) {
      threads.set(threadId, { ok: false, error: notFound(threadId, handle.alias) });
      return;
    }
    try {
      const { value } = await withEnvironmentDeadline(context, handle.alias, signal, (readSignal) =>
        readWithRetry(
          handle,
          (connection, own) => fetchThreadProjection(connection, threadId, own),
          readSignal,
        ),
      );
      threads.set(threadId, { ok: true, thread: buildThreadRead(base, visible, value, observedMs, options) });
    } catch (error) {
      threads.set(threadId, { ok: false, error: failureOf(error) });
    }
  });
  // The threads the deadline never let start answer like the ones it cut short.
  for (const threadId of group.threadIds) {
    if (!threads.has(threadId)) threads.set(threadId, { ok: false, error: failureOf(CALL_DEADLINE) });
  }
  return { environment: { ...base, status: "ok", observedAt }, threads };
}

function notFound(threadId: string, alias: string): BatchItemError {
  return { code: "thread_not_found", reason: threadNotFoundIn(threadId, alias).message };
}

function failureOf(error: unknown): BatchItemError {
  if (error === CALL_DEADLINE) {
    return { code: "global_timeout", reason: "the call's deadline expired before this read finished" };
  }
  if (error === ENVIRONMENT_DEADLINE) {
    return { code: "timeout", reason: "the environment did not answer in time" };
  }
  if (isConnectorError(error, "thread_not_found")) return { code: "thread_not_found", reason: error.message };
  return classifyFailure(error);
}

/**
 * One read (connection, shell or projection, and its retry) under the per-environment deadline
 * and the call's. A deadline rejects with its symbol, so the failure names the deadline that
 * expired rather than whatever the aborted request reported.
 */
async function withEnvironmentDeadline<T>(
  context: ReadContext,
  alias: string,
  callSignal: AbortSignal,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  // Past the call's deadline nothing is started: the failure is the deadline's.
  if (callSignal.aborted) throw callSignal.reason;
  const own = deadlinesOf(context).start(context.limits.perEnvironmentTimeoutMs, ENVIRONMENT_DEADLINE, {
    alias,
  });
  const signal = AbortSignal.any([callSignal, own.signal]);
  try {
    return await stopOnAbort(work(signal), signal);
  } finally {
    own.clear();
  }
}

/** Runs `work` over `items` with at most `limit` in flight; once `signal` aborts, starts no more. */
async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  signal: AbortSignal,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (!signal.aborted && next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function cancelled(): ConnectorError {
  return new ConnectorError("cancelled", "the read was cancelled by the caller");
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
