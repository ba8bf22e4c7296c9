/**
 * The checks before a send, on a fresh shell read for this operation: targets exist, the
 * catalogue's local guards (no active run, no pending request, clientRequestId = operationId,
 * workspace paths), and the chosen or the thread's provider and model against the environment's
 * `server.getConfig` (the engine's own `checkConfigGuards`). The
 * operator owns the environment, so the approved workspaces are every project root and worktree.
 */
import { ConnectorError } from "@t3-connector/core";
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import type { ShellSnapshot, ThreadShell } from "@t3-connector/core/t3";
import {
  type AnyActionDefinition,
  checkConfigGuards,
  checkLocalGuards,
  checkModelSelection,
  type ModelSelection,
  type ThreadStateView,
} from "@t3-connector/write-engine/actions";

export function liveThreads(shell: ShellSnapshot): Map<string, ThreadShell> {
  const rows = [...shell.threads, ...(shell.archivedThreads ?? [])].filter((thread) => !thread.deletedAt);
  return new Map(rows.map((thread) => [thread.id, thread]));
}

export function threadStateView(thread: ThreadShell): ThreadStateView {
  const pending = thread.pendingRuntimeRequest;
  return {
    status: thread.status ?? "unknown",
    activeRunId: thread.activeRunId ?? null,
    pendingRuntimeRequest: pending ? { id: pending.id, kind: pending.kind ?? "unknown" } : null,
  };
}

export function workspaceRoots(shell: ShellSnapshot): string[] {
  const roots = new Set<string>();
  for (const project of shell.projects) if (project.workspaceRoot) roots.add(project.workspaceRoot);
  for (const thread of shell.threads)
    if (typeof thread.worktreePath === "string") roots.add(thread.worktreePath);
  return [...roots];
}

/** `server.getConfig` now; undefined when it cannot be read (the guard refuses then). */
async function readConfig(connection: ConnectedEnvironment): Promise<unknown> {
  try {
    return await (await connection.rpc()).getConfig();
  } catch {
    return undefined;
  }
}

/** Reads `server.getConfig` once and checks a selection against it; null when it is offered. */
export async function checkSelectionOffered(
  connection: ConnectedEnvironment,
  selection: ModelSelection,
): Promise<ConnectorError | null> {
  return checkModelSelection(selection, await readConfig(connection));
}

export async function preflight(
  connection: ConnectedEnvironment,
  entry: AnyActionDefinition,
  input: unknown,
  operationId: string,
  shell: ShellSnapshot,
): Promise<void> {
  const threads = liveThreads(shell);
  const targets = entry.targets(input);
  const missing = targets.threadIds.find((id) => !threads.has(id));
  if (missing !== undefined) {
    throw new ConnectorError("thread_not_found", `thread ${missing} does not exist (or was deleted)`, {
      details: { reason: "thread_not_found", threadId: missing },
    });
  }
  const projects = new Set(shell.projects.filter((p) => !p.deletedAt).map((p) => p.id));
  const missingProject = targets.projectIds.find((id) => !projects.has(id));
  if (missingProject !== undefined) {
    throw new ConnectorError("not_found", `project ${missingProject} does not exist (or was deleted)`, {
      details: { reason: "project_not_found", projectId: missingProject },
    });
  }
  const local = checkLocalGuards(entry.guards, input, {
    operationId,
    thread: (threadId) => {
      const thread = threads.get(threadId);
      return thread === undefined ? undefined : threadStateView(thread);
    },
    approvedWorkspaceRoots: workspaceRoots(shell),
  });
  if (local !== null) throw local;
  const refusal = await checkConfigGuards(
    entry.guards,
    input,
    (threadId) => threads.get(threadId)?.modelSelection,
    () => readConfig(connection),
  );
  if (refusal !== null) throw refusal;
}
