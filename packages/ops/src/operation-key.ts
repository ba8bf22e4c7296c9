/**
 * Ops keeps no journal: idempotency rests on T3's command receipts. Every id sent derives from
 * (namespace, environmentId, operationId) and the action, so a repeat carries the same commandId
 * and T3 replays its receipt instead of applying the command again.
 */
import { deriveOperationKey } from "@t3-connector/write-engine/actions";

export const DEFAULT_NAMESPACE = "t3-connector-ops";

export function opsOperationKey(
  environmentId: string,
  operationId: string,
  namespace = DEFAULT_NAMESPACE,
): string {
  return deriveOperationKey({
    environmentId,
    destination: `t3://${environmentId}`,
    // The namespace plays the write gate's channel: ids of ops never collide with the gate's.
    caller: `ops:${namespace}`,
    operationId,
  });
}
