/**
 * A thread's recent window, from whichever route the server has. Protocol 2 serves a bounded
 * window (`/bounded`); the first Orchestrator V2 builds only have the full snapshot, which is the
 * same projection with the whole history. The absence is learned once per connection (the client
 * remembers it), so an older server costs one extra request per connection, not one per read.
 */
import { isConnectorError } from "../errors.js";
import type { RequestOptions, T3HttpClient } from "./http-client.js";
import type { ThreadProjection } from "./wire/thread.js";

export interface ThreadWindow {
  readonly snapshotSequence: number;
  readonly projection: ThreadProjection;
  /** Where older rows stand; null for a full snapshot, which holds the whole history. */
  readonly bounds: { readonly hasMoreHistory: boolean; readonly payloadBudgetExceeded?: boolean } | null;
  readonly source: "bounded" | "full";
}

export async function fetchThreadWindow(
  http: T3HttpClient,
  threadId: string,
  options: RequestOptions = {},
): Promise<ThreadWindow> {
  if (!http.lacksRoute("thread-bounded")) {
    try {
      const bounded = await http.getThreadBounded(threadId, options);
      return {
        snapshotSequence: bounded.snapshotSequence,
        projection: bounded.projection,
        bounds: {
          hasMoreHistory: bounded.hasMoreHistory,
          ...(bounded.payloadBudgetExceeded === undefined
            ? {}
            : { payloadBudgetExceeded: bounded.payloadBudgetExceeded }),
        },
        source: "bounded",
      };
    } catch (error) {
      if (!isConnectorError(error, "route_absent")) throw error;
    }
  }
  const full = await http.getThread(threadId, options);
  return {
    snapshotSequence: full.snapshotSequence,
    projection: full.projection,
    bounds: null,
    source: "full",
  };
}
