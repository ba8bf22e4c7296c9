/**
 * A thread waiting on a secret request, on a server whose shell rows name none: the simulator's
 * reading puts `pendingSecretRequest` on the row, but no upstream source shows that field (the
 * item's fields are known, the row's are not; ADR 0069). Its run stays `running`, so without this
 * an attention listing would miss it. When no row of the shell carries the field at all, each
 * running row without a pending runtime request is read by id and a pending `secret_request` item
 * there becomes the row's `pendingSecretRequest`. Bounded per call. Both servers fill their
 * shells here, each reading a thread its own way (the read server over its connection, the
 * bridge through the gate's leased read), so `t3_atencao` answers the same on both.
 */
import { projectionSecretRequests } from "@t3-connector/core/state";
import type { ShellSnapshot, ThreadProjection, ThreadShell } from "@t3-connector/core/t3";

/** Threads read per environment and call, at most: the listing's cost stays bounded. */
export const MAX_SECRET_READS_PER_CALL = 16;

/** Reads one thread's recent turn items (its bounded window); a failed read is no secret request. */
export type ThreadTurnReader = (
  threadId: string,
  signal: AbortSignal,
) => Promise<Pick<ThreadProjection, "turnItems">>;

function candidate(row: ThreadShell): boolean {
  return row.status === "running" && !row.pendingRuntimeRequest && !row.archivedAt && !row.deletedAt;
}

/** The shell with the secret requests read from threads, or the same shell when nothing was found. */
export async function withSecretsFromThreads(
  shell: ShellSnapshot,
  readTurns: ThreadTurnReader,
  signal: AbortSignal,
): Promise<ShellSnapshot> {
  if (shell.threads.some((row) => Object.hasOwn(row, "pendingSecretRequest"))) return shell;
  const rows = shell.threads.filter(candidate).slice(0, MAX_SECRET_READS_PER_CALL);
  if (rows.length === 0) return shell;
  const found = new Map<string, { id: string; name: string | null; createdAt: string | null }>();
  for (const row of rows) {
    if (signal.aborted) break;
    const turns = await readTurns(row.id, signal).catch(() => undefined);
    // Only the turn items are read: the secret_request item is the one thing wanted of the window.
    const secret =
      turns === undefined ? undefined : projectionSecretRequests({ turnItems: turns.turnItems })[0];
    if (secret?.secretRequestId) {
      found.set(row.id, { id: secret.secretRequestId, name: secret.name, createdAt: secret.since });
    }
  }
  if (found.size === 0) return shell;
  return {
    ...shell,
    threads: shell.threads.map((row) => {
      const secret = found.get(row.id);
      return secret === undefined ? row : { ...row, pendingSecretRequest: secret };
    }),
  };
}
