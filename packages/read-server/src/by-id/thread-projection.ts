import { isConnectorError } from "@t3-connector/core";
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import { fetchThreadWindow } from "@t3-connector/core/t3";
import type { FetchedProjection } from "@t3-connector/mcp-tools/read-answers";
import { threadNotFoundIn } from "./thread-errors.js";

/**
 * Reads the recent window; a server without the bounded route (an older T3, whatever it answers
 * instead: ADR 0009) gets the full snapshot, which is complete by definition. A thread that
 * vanished between the shell and this read answers like any unknown thread.
 */
export async function fetchThreadProjection(
  connection: ConnectedEnvironment,
  threadId: string,
  signal: AbortSignal,
): Promise<FetchedProjection> {
  try {
    const window = await fetchThreadWindow(connection.http, threadId, { signal });
    return { projection: window.projection, bounds: window.bounds };
  } catch (error) {
    if (isConnectorError(error, "thread_not_found")) throw threadNotFoundIn(threadId, connection.alias);
    throw error;
  }
}
