/**
 * `settle`: mark a thread done. Refused (by the catalogue's guards, on a fresh shell) while a run
 * is in flight or a request is pending. The operationId derives from the thread and its latest
 * run, so a repeat for the same run replays T3's receipt; an already settled thread sends nothing.
 */
import { ConnectorError } from "@t3-connector/core";
import { type ActResult, act } from "./act.js";
import type { OpsEnvironments } from "./environments.js";
import { resolveThread } from "./references.js";

export interface SettleResult {
  environment: { alias: string; environmentId: string };
  threadId: string;
  settled: boolean;
  /** True when the thread was settled already: nothing was sent. */
  alreadySettled: boolean;
  operation: ActResult | null;
}

export async function settleThread(
  environments: OpsEnvironments,
  environment: string | undefined,
  reference: string,
  options: { namespace?: string } = {},
): Promise<SettleResult> {
  const { env, thread } = await resolveThread(environments, reference, environment);
  const identity = { alias: env.config.alias, environmentId: env.config.environmentId };
  if (thread.settledAt) {
    return {
      environment: identity,
      threadId: thread.id,
      settled: true,
      alreadySettled: true,
      operation: null,
    };
  }
  const operation = await act(
    environments,
    env.config.alias,
    "thread.settle",
    { threadId: thread.id },
    {
      operationId: `settle:${thread.id}:${thread.latestRunId ?? "no-run"}`,
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    },
  );
  const settled = operation.confirmation[0]?.settled === true;
  if (!settled) {
    throw new ConnectorError(
      "connection_lost",
      `T3 accepted thread.settle but ${thread.id} does not read back as settled`,
      {
        details: { uncertain: true, threadId: thread.id, commandId: operation.commandId },
      },
    );
  }
  return { environment: identity, threadId: thread.id, settled, alreadySettled: false, operation };
}
