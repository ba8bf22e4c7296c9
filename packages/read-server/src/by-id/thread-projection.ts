import { isConnectorError } from "@t3-connector/core";
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import type { HistoryBoundsInput } from "@t3-connector/core/state";
import type { ThreadProjection } from "@t3-connector/core/t3";
import { threadNotFoundIn } from "./thread-errors.js";

/** A thread's projection and, when it came from the bounded window, the window's history bounds. */
export interface FetchedProjection {
  readonly projection: ThreadProjection;
  /** Null for a full snapshot, which holds the whole history. */
  readonly bounds: HistoryBoundsInput | null;
}

/**
 * Reads the recent window (`/bounded`). A server without that route (404 without T3's
 * `thread_not_found` reason) gets the full snapshot instead, which is complete by definition.
 * A thread that vanished between the shell and this read answers like any unknown thread.
 */
export async function fetchThreadProjection(
  connection: ConnectedEnvironment,
  threadId: string,
  signal: AbortSignal,
): Promise<FetchedProjection> {
  try {
    const bounded = await connection.http.getThreadBounded(threadId, { signal });
    return {
      projection: bounded.projection,
      bounds: {
        hasMoreHistory: bounded.hasMoreHistory,
        payloadBudgetExceeded: bounded.payloadBudgetExceeded,
      },
    };
  } catch (error) {
    if (isConnectorError(error, "thread_not_found")) throw threadNotFoundIn(threadId, connection.alias);
    if (!isConnectorError(error, "not_found")) throw error;
  }
  try {
    const full = await connection.http.getThread(threadId, { signal });
    return { projection: full.projection, bounds: null };
  } catch (error) {
    if (isConnectorError(error, "thread_not_found")) throw threadNotFoundIn(threadId, connection.alias);
    throw error;
  }
}
