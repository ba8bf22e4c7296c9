/**
 * Runs a threads batch (ADR 0074) through the ordinary engine, one item at a time.
 *
 * The manifest is a journal record of its own (`threads-batch/<batchId>`, action `threads.batch`),
 * reserved before the first item with the hash of `[verb, threads, until]`: the same batchId with
 * another list is `operation_conflict`, and the same list resumes. Nothing is ever sent under the
 * manifest's key; it moves to `completed` (through `uncertain`, the journal's only way there)
 * when every item has a final answer, and stays `preparing` while one is uncertain.
 *
 * Each item is the catalogue action on one thread, dispatched with the batch's lease under its own
 * operationId, so it is journaled, leased, guarded and sent once like any write; a repeat replays
 * it. A refused item is final and the batch goes on; an uncertain one (its answer was lost) stops
 * the batch there, the rest not attempted, and the answer says so. The caller (the gate) hands in
 * `dispatchItem`, which records and audits each item as it does a single write.
 */
import { ConnectorError, isConnectorError } from "@t3-connector/core";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";
import {
  BATCH_VERBS,
  batchItemInput,
  batchOperationIds,
  THREADS_BATCH_ACTION,
  type ThreadsBatchInput,
  threadsBatchInput,
} from "../actions/index.js";
import type { Journal } from "../journal/index.js";
import { destinationOf } from "./dispatcher.js";
import type { LeaseRule } from "./lease-rule.js";
import type { DispatchOutcome } from "./outcome.js";
import type { DispatchRequest, LeaseFacts } from "./types.js";

export interface ThreadsBatchRequest {
  readonly leaseId: string;
  readonly lease: LeaseFacts | null;
  readonly environment: string;
  /** The envelope's idempotency key: the batchId when the input names none. */
  readonly operationId: string;
  readonly input: unknown;
}

export type BatchItemState = "completed" | "refused" | "uncertain" | "not_attempted";

export interface BatchItem {
  readonly index: number;
  readonly threadId: string;
  readonly operationId: string;
  readonly state: BatchItemState;
  /** True when the journal already held this item's answer and nothing was sent now. */
  readonly replayed: boolean;
  readonly code?: string;
  readonly message?: string;
}

export interface ThreadsBatchResult {
  /** `completed`: every item has a final answer; `stopped`: an item is uncertain, the rest wait. */
  readonly state: "completed" | "stopped";
  readonly batchId: string;
  readonly action: keyof typeof BATCH_VERBS;
  readonly environmentId: string;
  readonly items: readonly BatchItem[];
  readonly summary: Readonly<Record<BatchItemState, number>>;
  /** The item the batch stopped at (its operationId settles with t3_reconciliar_escrita). */
  readonly stoppedAt?: number;
}

export interface ThreadsBatchDeps {
  readonly journal: Journal;
  readonly registry: EnvironmentRegistry;
  readonly channel: string;
  readonly leases: LeaseRule;
  /** One item, as the caller dispatches a single write (recorded and audited there). */
  readonly dispatchItem: (request: DispatchRequest) => Promise<DispatchOutcome>;
}

function parseBatch(raw: unknown): ThreadsBatchInput {
  const parsed = threadsBatchInput.safeParse(raw);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  throw new ConnectorError(
    "invalid_input",
    first === undefined ? "invalid input" : `${first.path.join(".") || "input"}: ${first.message}`,
    { details: { reason: "invalid_input" } },
  );
}

function itemOf(index: number, threadId: string, operationId: string, outcome: DispatchOutcome): BatchItem {
  const base = { index, threadId, operationId };
  if (outcome.state === "completed") return { ...base, state: "completed", replayed: outcome.replayed };
  const error = isConnectorError(outcome.error) ? outcome.error : undefined;
  const said = { code: error?.code ?? "internal", message: error?.message ?? "the write failed" };
  if (outcome.state === "uncertain")
    return { ...base, state: "uncertain", replayed: outcome.replayed, ...said };
  return { ...base, state: "refused", replayed: outcome.state === "refused" && outcome.replayed, ...said };
}

export async function runThreadsBatch(
  deps: ThreadsBatchDeps,
  request: ThreadsBatchRequest,
): Promise<ThreadsBatchResult> {
  const input = parseBatch(request.input);
  // Before anything is recorded: a closed lease writes no manifest.
  if (!deps.leases.isOpen(request.lease, request.leaseId)) {
    throw new ConnectorError("lease_closed", "no open lease with this id");
  }
  const handle = deps.registry.resolve(request.environment);
  const batchId = input.batchId ?? request.operationId;
  const ids = batchOperationIds(batchId, input.threads);
  const manifest = await deps.journal.reserve({
    environmentId: handle.environmentId,
    destination: destinationOf(handle.environmentId),
    caller: deps.channel,
    operationId: ids.manifest,
    action: THREADS_BATCH_ACTION,
    input: { action: input.action, threads: input.threads, until: input.until ?? null },
  });
  const action = BATCH_VERBS[input.action];
  const items: BatchItem[] = [];
  let stoppedAt: number | undefined;
  for (const [index, threadId] of input.threads.entries()) {
    const operationId = ids.items[index] as string;
    if (stoppedAt !== undefined) {
      items.push({ index, threadId, operationId, state: "not_attempted", replayed: false });
      continue;
    }
    const outcome = await deps.dispatchItem({
      leaseId: request.leaseId,
      lease: request.lease,
      environment: request.environment,
      operationId,
      action,
      input: batchItemInput(input, threadId),
    });
    const item = itemOf(index, threadId, operationId, outcome);
    items.push(item);
    if (item.state === "uncertain") stoppedAt = index;
  }
  const summary = { completed: 0, refused: 0, uncertain: 0, not_attempted: 0 };
  for (const item of items) summary[item.state] += 1;
  if (stoppedAt === undefined && manifest.record.state === "preparing") {
    await deps.journal.markUncertain(manifest.record.key, {});
    await deps.journal.complete(manifest.record.key, { items: items.length, ...summary });
  }
  return {
    state: stoppedAt === undefined ? "completed" : "stopped",
    batchId,
    action: input.action,
    environmentId: handle.environmentId,
    items,
    summary,
    ...(stoppedAt === undefined ? {} : { stoppedAt }),
  };
}
