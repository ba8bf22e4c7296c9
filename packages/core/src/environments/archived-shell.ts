/**
 * Archived threads come from their own source. Current T3 (and the older 0.0.31 server) leave
 * them out of the shell: archiving emits `thread.removed` on the shell stream and the shell's
 * `archivedThreads` stays empty; only `orchestration.getArchivedShellSnapshot` lists them
 * (docs/t3-protocol-notes.md). Reads that may show an archived thread (search, a read by id, a
 * listing with archived threads) add this snapshot to the shell they read. It is read on demand,
 * never mirrored (ADR 0010): these reads are rare, and a fresh read cannot be stale.
 */
import type { ArchivedShellSnapshot, ShellSnapshot, ThreadShell } from "../t3/wire/shell.js";
import type { ConnectedEnvironment } from "./connection.js";

/** The archived shell of `connection`, over its socket. */
export async function readArchivedShell(
  connection: ConnectedEnvironment,
  options: { signal?: AbortSignal } = {},
): Promise<ArchivedShellSnapshot> {
  const rpc = await connection.rpc();
  return rpc.getArchivedShellSnapshot(options.signal ? { signal: options.signal } : {});
}

/**
 * `shell` with the archived snapshot's threads as its `archivedThreads` (and the projects only the
 * archived snapshot names). The archived snapshot was read last, so a thread it lists is archived
 * even if an older active row of it is still in `shell`. `shell` itself is not changed.
 */
export function withArchivedThreads(shell: ShellSnapshot, archived: ArchivedShellSnapshot): ShellSnapshot {
  const archivedById = new Map<string, ThreadShell>();
  for (const thread of shell.archivedThreads) archivedById.set(thread.id, thread);
  for (const thread of archived.threads) archivedById.set(thread.id, thread);
  const projectIds = new Set(shell.projects.map((project) => project.id));
  return {
    ...shell,
    threads: shell.threads.filter((thread) => !archivedById.has(thread.id)),
    archivedThreads: [...archivedById.values()],
    projects: [...shell.projects, ...archived.projects.filter((project) => !projectIds.has(project.id))],
  };
}

/** `shell` completed with the archived threads of `connection`, read now. */
export async function addArchivedThreads(
  connection: ConnectedEnvironment,
  shell: ShellSnapshot,
  options: { signal?: AbortSignal } = {},
): Promise<ShellSnapshot> {
  return withArchivedThreads(shell, await readArchivedShell(connection, options));
}
