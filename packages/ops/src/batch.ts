/**
 * `batch <action> <thread>…`: the threads batch (ADR 0074) on the operator's path. The same verbs,
 * limit and item operationIds as the gate's (`threads-batch/<batchId>/<index>`), each item the
 * catalogue's own write through `act`. ops keeps no journal, so no manifest: a repeat of the
 * batchId carries the same derived ids and T3 answers each item's receipt without applying it
 * again. A refused item is final and the batch goes on; an item whose answer was lost stops it.
 */
import { ConnectorError, isConnectorError } from "@t3-connector/core";
import {
  BATCH_VERBS,
  batchItemInput,
  batchOperationIds,
  threadsBatchInput,
} from "@t3-connector/write-engine/actions";
import { act } from "./act.js";
import type { OpsEnvironments } from "./environments.js";

export interface BatchOptions {
  /** The batch's idempotency key (each item's operationId derives from it). */
  batchId: string;
  /** snooze only. */
  until?: string;
  namespace?: string;
}

export interface OpsBatchItem {
  index: number;
  threadId: string;
  operationId: string;
  state: "completed" | "refused" | "uncertain" | "not_attempted";
  code?: string;
  message?: string;
}

export interface OpsBatchResult {
  state: "completed" | "stopped";
  batchId: string;
  action: string;
  items: OpsBatchItem[];
  stoppedAt?: number;
}

export async function runBatch(
  environments: OpsEnvironments,
  environment: string,
  verb: string,
  threads: readonly string[],
  options: BatchOptions,
): Promise<OpsBatchResult> {
  const parsed = threadsBatchInput.safeParse({
    action: verb,
    threads,
    batchId: options.batchId,
    ...(options.until === undefined ? {} : { until: options.until }),
  });
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ConnectorError(
      "invalid_input",
      `${first?.path.join(".") || "batch"}: ${first?.message ?? "invalid"}`,
    );
  }
  const input = parsed.data;
  const ids = batchOperationIds(options.batchId, input.threads);
  const items: OpsBatchItem[] = [];
  let stoppedAt: number | undefined;
  for (const [index, threadId] of input.threads.entries()) {
    const operationId = ids.items[index] as string;
    if (stoppedAt !== undefined) {
      items.push({ index, threadId, operationId, state: "not_attempted" });
      continue;
    }
    try {
      await act(environments, environment, BATCH_VERBS[input.action], batchItemInput(input, threadId), {
        operationId,
        ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
      });
      items.push({ index, threadId, operationId, state: "completed" });
    } catch (error) {
      if (!isConnectorError(error)) throw error;
      const uncertain = error.details?.uncertain === true;
      items.push({
        index,
        threadId,
        operationId,
        state: uncertain ? "uncertain" : "refused",
        code: error.code,
        message: error.message,
      });
      if (uncertain) stoppedAt = index;
    }
  }
  return {
    state: stoppedAt === undefined ? "completed" : "stopped",
    batchId: options.batchId,
    action: input.action,
    items,
    ...(stoppedAt === undefined ? {} : { stoppedAt }),
  };
}
