/**
 * The fresh shell read every write makes: which referenced threads exist (not deleted), in which
 * project, and in which state. Never cached: the lease's project check and the guards must see
 * T3 as it is now, not as a list someone read a minute ago.
 */

import { type ConnectedEnvironment, readArchivedShell } from "@t3-connector/core/environments";
import type { ThreadShell } from "@t3-connector/core/t3";
import type { ThreadStateView } from "../actions/index.js";

export interface FreshThreads {
  /** The shell's `snapshotSequence`: every effect of a later send has a higher sequence. */
  readonly snapshotSequence: number;
  readonly found: ReadonlyMap<string, ThreadShell>;
  readonly missing: readonly string[];
  /** Ids of the projects the shell lists and that are not deleted. */
  readonly liveProjectIds: ReadonlySet<string>;
}

function live(thread: ThreadShell): boolean {
  return thread.deletedAt === null || thread.deletedAt === undefined;
}

/**
 * Reads `GET /api/orchestration/shell`; threads it does not list (real T3 leaves its
 * `archivedThreads` empty) are looked up in the archived shell over the socket.
 */
export async function readFreshThreads(
  environment: ConnectedEnvironment,
  threadIds: readonly string[],
): Promise<FreshThreads> {
  const shell = await environment.http.getShell();
  const found = new Map<string, ThreadShell>();
  const wanted = new Set(threadIds);
  for (const thread of [...shell.threads, ...shell.archivedThreads]) {
    if (wanted.has(thread.id) && live(thread)) found.set(thread.id, thread);
  }
  if (found.size < wanted.size) {
    const archived = await readArchivedShell(environment);
    for (const thread of archived.threads) {
      if (wanted.has(thread.id) && !found.has(thread.id) && live(thread)) found.set(thread.id, thread);
    }
  }
  return {
    snapshotSequence: shell.snapshotSequence,
    found,
    missing: [...wanted].filter((id) => !found.has(id)),
    liveProjectIds: new Set(
      shell.projects
        .filter((project) => project.deletedAt === null || project.deletedAt === undefined)
        .map((project) => project.id),
    ),
  };
}

/** The fields the catalogue's thread guards read. */
export function threadStateView(thread: ThreadShell): ThreadStateView {
  const pending = thread.pendingRuntimeRequest;
  return {
    status: thread.status,
    activeRunId: thread.activeRunId ?? null,
    pendingRuntimeRequest:
      pending === null || pending === undefined ? null : { id: pending.id, kind: pending.kind ?? "unknown" },
  };
}

/** Sorted unique project ids of the found threads plus the ones the input names directly. */
export function projectsOf(fresh: FreshThreads, directProjectIds: readonly string[]): string[] {
  const ids = new Set(directProjectIds);
  for (const thread of fresh.found.values()) ids.add(thread.projectId);
  return [...ids].sort();
}
