/**
 * `t3_worktree`'s body. The folder is the thread's worktree, else its project's workspace root,
 * both as T3 recorded them in the shell the thread was located in: no input names a path, so no
 * call can make T3 look at a folder the client chose. T3 answers `vcs.refreshStatus` (branch,
 * working tree, upstream, PR) and `vcs.listRefs` (refs with their worktree paths) for it.
 */
import { ConnectorError } from "@t3-connector/core";
import { readWithRetry } from "@t3-connector/core/fanout";
import type { T3RpcClient, VcsRefList, VcsStatus } from "@t3-connector/core/t3";
import { locateThread } from "../by-id/locate-thread.js";
import type { ReadContext } from "../read-context.js";
import { environmentDeadline, withDeadline } from "../scope/read-scope.js";

export const WORKTREE_LIMITS = Object.freeze({
  /** Uncommitted files listed (the counts cover them all). */
  files: 200,
  /** Other worktrees per page. */
  worktrees: 50,
});

export interface ThreadWorktreeInput {
  environment?: string | undefined;
  threadId: string;
  cursor?: string | undefined;
}

export interface ThreadWorktreeOutput {
  environment: { alias: string; environmentId: string };
  threadId: string;
  folder: { path: string | null; source: "thread_worktree" | "project_root" | "none" };
  isRepo: boolean;
  branch: string | null;
  isDefaultBranch: boolean;
  hasWorkingTreeChanges: boolean;
  workingTree: {
    files: { path: string; additions: number; deletions: number }[];
    additions: number;
    deletions: number;
    truncated: boolean;
  };
  upstream: { hasUpstream: boolean; ahead: number; behind: number };
  aheadOfDefault: number | null;
  pullRequest: {
    number: number;
    title: string;
    url: string;
    state: string;
    baseBranch: string | null;
  } | null;
  worktrees: { branch: string; path: string; isThreadFolder: boolean }[];
  nextCursor?: string;
}

const CURSOR_QUERY = "t3_worktree";

export async function readThreadWorktree(
  context: ReadContext,
  input: ThreadWorktreeInput,
  signal: AbortSignal,
): Promise<ThreadWorktreeOutput> {
  const located = await locateThread(context, input.environment, input.threadId, signal);
  const thread = located.visible.thread;
  const worktreePath =
    typeof thread.worktreePath === "string" && thread.worktreePath !== "" ? thread.worktreePath : null;
  const root = located.visible.project?.workspaceRoot ?? null;
  const path = worktreePath ?? root;
  const alias = located.environment.alias;
  const query = `${CURSOR_QUERY}:${JSON.stringify([alias, input.threadId, path])}`;
  const offset = input.cursor === undefined ? 0 : offsetOf(context, input.cursor, query);
  const empty: ThreadWorktreeOutput = {
    environment: { alias, environmentId: located.environment.environmentId },
    threadId: input.threadId,
    folder: { path, source: worktreePath ? "thread_worktree" : path ? "project_root" : "none" },
    isRepo: false,
    branch: null,
    isDefaultBranch: false,
    hasWorkingTreeChanges: false,
    workingTree: { files: [], additions: 0, deletions: 0, truncated: false },
    upstream: { hasUpstream: false, ahead: 0, behind: 0 },
    aheadOfDefault: null,
    pullRequest: null,
    worktrees: [],
  };
  if (path === null) return empty;

  const handle = context.registry.resolve(alias);
  const read = <T>(call: (rpc: T3RpcClient, readSignal: AbortSignal) => Promise<T>): Promise<T> =>
    withDeadline(environmentDeadline(context, alias), signal, (deadline) =>
      readWithRetry(
        handle,
        async (connection, readSignal) => call(await connection.rpc(), readSignal),
        deadline,
      ).then((result) => result.value),
    );
  const status = await read((rpc, readSignal) => rpc.vcsRefreshStatus(path, { signal: readSignal }));
  if (!status.isRepo) return empty;
  const refs = await read((rpc, readSignal) =>
    rpc.vcsListRefs({ cwd: path, cursor: offset, limit: WORKTREE_LIMITS.worktrees }, { signal: readSignal }),
  );
  return {
    ...empty,
    isRepo: true,
    ...statusFields(status),
    worktrees: otherWorktrees(refs, path),
    ...(refs.nextCursor === null || refs.nextCursor <= offset
      ? {}
      : { nextCursor: context.cursors.encode({ v: 1, q: query, k: [refs.nextCursor] }) }),
  };
}

function statusFields(status: VcsStatus) {
  const files = status.workingTree.files;
  const pr = status.pr ?? null;
  return {
    branch: status.refName ?? null,
    isDefaultBranch: status.isDefaultRef,
    hasWorkingTreeChanges: status.hasWorkingTreeChanges,
    workingTree: {
      files: files.slice(0, WORKTREE_LIMITS.files).map((file) => ({
        path: file.path,
        additions: file.insertions,
        deletions: file.deletions,
      })),
      additions: status.workingTree.insertions,
      deletions: status.workingTree.deletions,
      truncated: files.length > WORKTREE_LIMITS.files,
    },
    upstream: { hasUpstream: status.hasUpstream, ahead: status.aheadCount, behind: status.behindCount },
    aheadOfDefault: status.aheadOfDefaultCount ?? null,
    pullRequest: pr
      ? { number: pr.number, title: pr.title, url: pr.url, state: pr.state, baseBranch: pr.baseRef ?? null }
      : null,
  };
}

/** The refs that have a worktree: the project's worktrees, the thread's own marked `isThreadFolder`. */
function otherWorktrees(refs: VcsRefList, path: string) {
  return refs.refs.flatMap((ref) =>
    ref.worktreePath === null
      ? []
      : [{ branch: ref.name, path: ref.worktreePath, isThreadFolder: ref.worktreePath === path }],
  );
}

function offsetOf(context: ReadContext, cursor: string, query: string): number {
  const payload = context.cursors.decode(cursor);
  const offset = payload.k[0];
  if (payload.q !== query || typeof offset !== "number" || !Number.isInteger(offset) || offset < 0) {
    throw new ConnectorError(
      "invalid_cursor",
      "the cursor belongs to another thread's worktrees; repeat the call without it",
    );
  }
  return offset;
}
