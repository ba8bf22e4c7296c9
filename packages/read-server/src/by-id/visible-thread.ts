import type { ProjectShell, ShellSnapshot, ThreadShell } from "@t3-connector/core/t3";

/** A thread row a read by id may show, with its project row from the same shell. */
export interface VisibleThread {
  readonly thread: ThreadShell;
  readonly project: ProjectShell | undefined;
}

/**
 * The row of `threadId` if this environment's ACL lets a read by id show it: active or archived
 * (a read by id accepts archived threads), never deleted, and in an allowed project.
 */
export function findVisibleThread(
  shell: ShellSnapshot,
  threadId: string,
  allowedProjects: ReadonlySet<string>,
): VisibleThread | undefined {
  const thread =
    shell.threads.find((row) => row.id === threadId) ??
    shell.archivedThreads.find((row) => row.id === threadId);
  if (thread === undefined || thread.deletedAt || !allowedProjects.has(thread.projectId)) return undefined;
  return { thread, project: shell.projects.find((project) => project.id === thread.projectId) };
}
