/**
 * Secret requests and restart-cancelled background work: two newer upstream states the server
 * raises itself (`secret_request.record` and restart recovery are internal; no client can send
 * them), so tests play them through the model's control API.
 *
 * A secret request asks the person for a value (an API key, a password) that T3 stores without it
 * ever reaching a client: it is answered only in T3's own app. The timeline item is
 * `secret_request` with `secretStatus: pending | saved | declined | cancelled`; the shell row
 * carries the pending one as `pendingSecretRequest` (the row field's name is the simulator's
 * reading, docs/simulator-fidelity.md).
 */
import { latestRun } from "./latest-run.js";
import type { SimStore, ThreadRecord } from "./store.js";
import type { RestartCancelledBackgroundWork, TurnItem } from "./types.js";

export type SecretStatus = "pending" | "saved" | "declined" | "cancelled";

export interface SecretRequestSpec {
  /** What is asked for, e.g. "GITHUB_TOKEN". */
  name: string;
  prompt?: string;
}

/**
 * The item's own fields in the spelling the environment plays (age-0046.ts): the simulator's
 * (`requestId`, `name`, `prompt`) or e65063cc's (`label`, `reason`, `placeholder`).
 */
function spelledFields(store: SimStore, requestId: string, spec: SecretRequestSpec): Record<string, unknown> {
  const prompt = spec.prompt ?? `Enter ${spec.name}`;
  if (store.unknowns.secretRequests === "simulator") return { requestId, name: spec.name, prompt };
  return { label: spec.name, reason: prompt, placeholder: spec.name };
}

const secretItemIdFor = (requestId: string): string => `turn-item:secret-request:${requestId}`;

function requireLive(store: SimStore, threadId: string): ThreadRecord {
  const record = store.liveThread(threadId);
  if (!record) throw new Error(`no live thread ${threadId}`);
  return record;
}

/** Records a pending secret request on the thread (what `secret_request.record` does upstream). */
export function recordSecretRequest(store: SimStore, threadId: string, spec: SecretRequestSpec): string {
  const record = requireLive(store, threadId);
  const requestId = `secret-request:${store.ids.uuid()}`;
  const run = latestRun(record);
  store.transact(record, null, (tx) => {
    tx.item({
      id: secretItemIdFor(requestId),
      threadId: tx.threadId,
      runId: run?.id ?? null,
      nodeId: run?.rootNodeId ?? null,
      providerThreadId: run?.providerThreadId ?? null,
      providerTurnId: null,
      nativeItemRef: null,
      parentItemId: null,
      ordinal: tx.nextItemOrdinal(),
      status: "waiting",
      title: `Secret requested: ${spec.name}`,
      startedAt: tx.now,
      completedAt: null,
      updatedAt: tx.now,
      type: "secret_request",
      ...spelledFields(store, requestId, spec),
      secretStatus: "pending",
    });
  });
  return requestId;
}

/** The person answered (or dismissed) the request in T3's app; the value stays inside T3. */
export function settleSecretRequest(
  store: SimStore,
  threadId: string,
  requestId: string,
  status: Exclude<SecretStatus, "pending">,
): void {
  const record = requireLive(store, threadId);
  const item = record.turnItems.get(secretItemIdFor(requestId));
  if (item?.secretStatus !== "pending") throw new Error(`no pending secret request ${requestId}`);
  store.transact(record, null, (tx) => {
    tx.item({
      ...item,
      secretStatus: status,
      status: status === "saved" ? "completed" : "cancelled",
      completedAt: tx.now,
      updatedAt: tx.now,
    });
  });
}

/** The oldest pending secret request of a thread, as the shell row carries it. */
export function pendingSecretRequest(
  record: ThreadRecord,
): { id: string; name: string; createdAt: string } | null {
  let oldest: TurnItem | undefined;
  for (const item of record.turnItems.values()) {
    if (item.type !== "secret_request" || item.secretStatus !== "pending") continue;
    // Items in e65063cc's spelling: no row field was read for them, so the row names none.
    if (item.name === undefined) continue;
    if (!oldest || item.ordinal < oldest.ordinal) oldest = item;
  }
  if (!oldest) return null;
  return {
    id: String(oldest.requestId),
    name: String(oldest.name),
    createdAt: oldest.startedAt ?? oldest.updatedAt,
  };
}

/**
 * Restart recovery cancelled background work of the thread's latest run: the run records it
 * (`run.background-work-cancelled`, the run's lifecycle untouched) so the next provider turn is told.
 */
export function cancelBackgroundWorkOnRestart(
  store: SimStore,
  threadId: string,
  work: readonly RestartCancelledBackgroundWork[],
): void {
  const record = requireLive(store, threadId);
  const run = latestRun(record);
  if (!run) throw new Error(`thread ${threadId} has no run`);
  store.transact(record, null, (tx) => {
    const updated = { ...run, restartCancelledBackgroundWork: [...work] };
    record.runs.set(run.id, updated);
    tx.emit(
      "run.background-work-cancelled",
      { runId: run.id, restartCancelledBackgroundWork: updated.restartCancelledBackgroundWork },
      { runId: run.id, ...(run.rootNodeId ? { nodeId: run.rootNodeId } : {}) },
    );
  });
}
