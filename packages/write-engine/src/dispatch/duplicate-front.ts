/**
 * The duplicate front of a launch (ADR 0075): the project's active threads (not deleted, archived
 * or settled) already on the branch, the worktree or the title the launch names. It is a warning,
 * never a refusal: two threads on one branch may be meant. Read from the shell, as the sidebar
 * lists them; nothing is sent.
 */
import type { ConnectedEnvironment } from "@t3-connector/core/environments";

export type DuplicateMatch = "branch" | "worktree" | "title";

/** `checked: false`: the shell could not be read, so whether a duplicate exists is unknown. */
export interface DuplicateFront {
  readonly checked: boolean;
  readonly threads: readonly DuplicateThread[];
}

export interface DuplicateThread {
  readonly threadId: string;
  readonly title: string;
  readonly matches: readonly DuplicateMatch[];
}

/** At most this many duplicates are named (the answer stays bounded). */
const MAX_DUPLICATES = 20;

interface LaunchFront {
  readonly projectId: string;
  readonly title: string;
  readonly workspaceStrategy: { readonly branch?: string; readonly worktreePath?: string };
}

const sameTitle = (a: string, b: string) => a.trim().toLocaleLowerCase() === b.trim().toLocaleLowerCase();

export async function duplicateFront(
  environment: ConnectedEnvironment,
  parsedLaunch: unknown,
): Promise<DuplicateFront> {
  const launch = parsedLaunch as LaunchFront;
  const { branch, worktreePath } = launch.workspaceStrategy;
  let shell: Awaited<ReturnType<ConnectedEnvironment["http"]["getShell"]>>;
  try {
    shell = await environment.http.getShell();
  } catch {
    return { checked: false, threads: [] };
  }
  const found: DuplicateThread[] = [];
  for (const thread of shell.threads) {
    if (thread.projectId !== launch.projectId || thread.deletedAt || thread.archivedAt || thread.settledAt)
      continue;
    const row = thread as { branch?: unknown; worktreePath?: unknown };
    const matches: DuplicateMatch[] = [];
    if (branch !== undefined && row.branch === branch) matches.push("branch");
    if (worktreePath !== undefined && row.worktreePath === worktreePath) matches.push("worktree");
    if (sameTitle(thread.title, launch.title)) matches.push("title");
    if (matches.length > 0) found.push({ threadId: thread.id, title: thread.title, matches });
    if (found.length === MAX_DUPLICATES) break;
  }
  return { checked: true, threads: found };
}
