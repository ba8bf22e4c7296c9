/**
 * One simulated environment per catalogue action (alias `a<index>`), each seeded with the state its
 * action needs: the every-action tests run all 44 actions side by side without one's state
 * touching another's.
 */
import type { SimEnvironment } from "@t3-connector/t3-sim";
import { aliasOf, seedForAction } from "@t3-connector/test-support/action-states";
import { bindProjectWrite } from "@t3-connector/test-support/bound-project-writes";
import type { ActionId } from "../../../src/actions/index.js";
import type { Harness } from "./harness.js";
import { LEASE_ID } from "./harness.js";

export { aliasOf };

/** Seeds each action's own environment; answers the input to send for each, bound in the lease. */
export async function seedEachAction(
  harness: Harness,
  actions: readonly ActionId[],
): Promise<Map<ActionId, Record<string, unknown>>> {
  const inputs = new Map<ActionId, Record<string, unknown>>();
  for (const action of actions) {
    const env = harness.env(aliasOf(action));
    const input = await seedForAction(env, action);
    inputs.set(action, input);
    // A create's folder is admitted as an approval that named it binds it (ADR 0074).
    harness.lease.scope = bindProjectWrite(harness.lease.scope, env.environmentId, action, input);
  }
  return inputs;
}

/**
 * Dispatches `action` with its seeded input in its own environment, under the harness's lease;
 * thread.send's operationId is its clientRequestId, as a client sends it.
 */
export async function dispatchSeededAction(
  harness: Harness,
  inputs: ReadonlyMap<ActionId, Record<string, unknown>>,
  action: ActionId,
) {
  const env: SimEnvironment = harness.env(aliasOf(action));
  const input = inputs.get(action);
  const operationId = action === "thread.send" ? String(input?.clientRequestId) : `op-${action}`;
  const before = env.model.receivedCommands.length;
  const request = { leaseId: LEASE_ID, environment: env.alias, operationId, action, input };
  const result = await harness.dispatcher.dispatch(request);
  return { env, operationId, before, request, result };
}
