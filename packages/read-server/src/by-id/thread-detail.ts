import { readWithRetry } from "@t3-connector/core/fanout";
import type { FetchedProjection } from "@t3-connector/mcp-tools/read-answers";
import type { ReadContext } from "../read-context.js";
import { environmentDeadline, withDeadline } from "../scope/read-scope.js";
import type { LocatedThread } from "./locate-thread.js";
import { fetchThreadProjection } from "./thread-projection.js";

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
