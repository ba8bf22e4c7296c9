/**
 * What waits on the person in one environment (ADR 0073), read fresh: each thread the shell says
 * waits on a runtime or secret request is read by id (its bounded window), and its items are built
 * by the state's one inbox model, so the gate and ops list the same items under the same ids.
 */
import {
  type InboxEnvironmentRef,
  type InboxItem,
  projectionSecretRequests,
  type ShellThreadInput,
  shellSecretRequest,
  type ThreadProjectionInput,
  threadChangeSummary,
  threadInboxItems,
  threadRead,
} from "../state/index.js";
import { fetchThreadWindow } from "../t3/index.js";
import type { ConnectedEnvironment } from "./connection.js";

interface ShellRow extends ShellThreadInput {
  readonly id: string;
}

/** Whether the shell row says the thread waits on the person (a runtime or a secret request). */
function waitsOnPerson(row: ShellThreadInput): boolean {
  if (row.deletedAt !== null && row.deletedAt !== undefined) return false;
  return Boolean(row.pendingRuntimeRequest?.id) || Boolean(row.pendingSecretRequest);
}

/** The items of one environment, from a fresh shell and a fresh read of each waiting thread. */
export async function environmentInboxItems(
  connected: ConnectedEnvironment,
  now: number,
  signal: AbortSignal,
): Promise<InboxItem[]> {
  const shell = await connected.http.getShell({ signal });
  const environment: InboxEnvironmentRef = {
    alias: connected.alias,
    environmentId: connected.environmentId,
    machine: connected.name ?? connected.alias,
  };
  const projects = new Map(shell.projects.map((project) => [project.id, project]));
  const rows = (shell.threads as readonly ShellRow[]).filter(waitsOnPerson);
  const perThread = await Promise.all(
    rows.map(async (row) => {
      const window = await fetchThreadWindow(connected.http, row.id, { signal });
      const projection = window.projection as ThreadProjectionInput;
      const read = threadRead(row, projection, window.bounds, {
        now,
        project: projects.get(row.projectId ?? "") ?? null,
      });
      const secrets = projectionSecretRequests(projection);
      const fromRow = shellSecretRequest(row);
      if (fromRow !== null && !secrets.some((s) => s.secretRequestId === fromRow.secretRequestId))
        secrets.push(fromRow);
      const changeSummary = threadChangeSummary(projection)?.line ?? null;
      return threadInboxItems(environment, read, { secrets, changeSummary, now });
    }),
  );
  return perThread.flat();
}
