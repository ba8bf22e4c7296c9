import type { ShellSnapshot } from "@t3-connector/core/t3";
import type { VisibleThread } from "@t3-connector/mcp-tools/read-answers";

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
