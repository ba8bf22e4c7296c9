/**
 * `snooze` and `interrupt`: two catalogue actions with the seed's defaults. Snooze refuses a
 * running thread or one with a pending request (the catalogue's guards) and derives its
 * operationId from the thread and the date; interrupt stops the thread's active run (or the one
 * named) and says so plainly when there is none, sending nothing.
 */
import { ConnectorError } from "@t3-connector/core";
import { type ActResult, act } from "./act.js";
import type { OpsEnvironments } from "./environments.js";
import { resolveThread } from "./references.js";

export async function snoozeThread(
  environments: OpsEnvironments,
  environment: string | undefined,
  reference: string,
  until: string,
  options: { namespace?: string } = {},
): Promise<ActResult> {
  checkSnoozeInstant(until);
  const { env, thread } = await resolveThread(environments, reference, environment);
  return act(
    environments,
    env.config.alias,
    "thread.snooze",
    { threadId: thread.id, snoozedUntil: until },
    {
      operationId: `snooze:${thread.id}:${until}`,
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    },
  );
}

/**
 * T3 takes an ISO date-time with a time zone; a bare date such as 2026-12-04 is the usual mistake.
 * Refused here, before any read, with an example of what works.
 */
function checkSnoozeInstant(until: string): void {
  const isoWithZone = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
  if (!isoWithZone.test(until) || Number.isNaN(Date.parse(until))) {
    throw new ConnectorError(
      "invalid_input",
      `snooze needs an ISO date-time with a time zone, e.g. 2026-12-04T09:00:00+01:00 or 2026-12-04T08:00:00Z (got "${until}").`,
    );
  }
}

export type InterruptResult =
  | { interrupted: true; threadId: string; runId: string; operation: ActResult }
  | { interrupted: false; threadId: string; reason: "no_active_run" };

export async function interruptThread(
  environments: OpsEnvironments,
  environment: string | undefined,
  reference: string,
  options: { operationId: string; runId?: string; reason?: string; namespace?: string },
): Promise<InterruptResult> {
  const { env, thread } = await resolveThread(environments, reference, environment);
  const runId = options.runId ?? thread.activeRunId ?? undefined;
  if (runId === undefined || runId === null) {
    return { interrupted: false, threadId: thread.id, reason: "no_active_run" };
  }
  const operation = await act(
    environments,
    env.config.alias,
    "run.interrupt",
    { threadId: thread.id, runId, ...(options.reason === undefined ? {} : { reason: options.reason }) },
    {
      operationId: options.operationId,
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    },
  );
  return { interrupted: true, threadId: thread.id, runId, operation };
}
