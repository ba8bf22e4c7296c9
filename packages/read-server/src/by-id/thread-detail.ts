import type { EnvironmentRef } from "@t3-connector/core/fanout";
import { readWithRetry } from "@t3-connector/core/fanout";
import {
  type ShellThreadInput,
  THREAD_MAX_CHARACTERS,
  type ThreadProjectionInput,
  threadRead,
} from "@t3-connector/core/state";
import type { ThreadReadOutput } from "@t3-connector/mcp-tools/read-contracts";
import type { ReadContext } from "../read-context.js";
import { environmentDeadline, withDeadline } from "../scope/read-scope.js";
import type { LocatedThread } from "./locate-thread.js";
import { type FetchedProjection, fetchThreadProjection } from "./thread-projection.js";
import type { VisibleThread } from "./visible-thread.js";

export interface ThreadDetailOptions {
  /** Limits `latestResponse` only (never request questions or options). */
  maxCharacters?: number;
}

/**
 * The body of `t3_thread`, from one shell row and its projection: the shell decides authorization
 * and the top-level fields, the projection adds pending requests and the detail. Pure, so the
 * batch builds exactly the same object.
 */
export function buildThreadRead(
  environment: Pick<EnvironmentRef, "alias" | "environmentId">,
  visible: VisibleThread,
  fetched: FetchedProjection,
  now: number,
  options: ThreadDetailOptions = {},
): ThreadReadOutput {
  // The wire rows are lenient (`options` is `unknown` there); the projection reads them structurally
  // and validates every field it exposes, so the cast only bridges the two declared shapes.
  const shell = visible.thread as ShellThreadInput;
  const projection = fetched.projection as ThreadProjectionInput;
  const read = threadRead(shell, projection, fetched.bounds, {
    now,
    project: visible.project ?? null,
    maxCharacters: options.maxCharacters ?? THREAD_MAX_CHARACTERS.default,
  });
  return { environment: { alias: environment.alias, environmentId: environment.environmentId }, ...read };
}

/**
 * Reads the projection of a located thread in its environment (one retry after a transport
 * failure, under the per-environment deadline).
 */
export async function readLocatedProjection(
  context: ReadContext,
  thread: LocatedThread,
  signal: AbortSignal,
): Promise<FetchedProjection> {
  const handle = context.registry.resolve(thread.environment.alias);
  const threadId = thread.visible.thread.id;
  const { value } = await withDeadline(environmentDeadline(context, handle.alias), signal, (deadline) =>
    readWithRetry(
      handle,
      (connection, readSignal) => fetchThreadProjection(connection, threadId, readSignal),
      deadline,
    ),
  );
  return value;
}

/** `t3_thread`'s answer for a located thread, with `environmentDiscovery` after a sweep. */
export async function readThreadDetail(
  context: ReadContext,
  thread: LocatedThread,
  options: ThreadDetailOptions,
  signal: AbortSignal,
): Promise<ThreadReadOutput> {
  const fetched = await readLocatedProjection(context, thread, signal);
  const body = buildThreadRead(thread.environment, thread.visible, fetched, thread.observedAt, options);
  if (!thread.discovery) return body;
  const { environment, ...rest } = body;
  return { environment, environmentDiscovery: thread.discovery, ...rest };
}
