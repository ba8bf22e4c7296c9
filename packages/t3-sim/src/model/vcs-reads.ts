/**
 * `vcs.refreshStatus` and `vcs.listRefs` as 0.0.31 answers them (fixtures 126–132), over the
 * simulated repositories (workspace-files.ts): a folder is a repository when it is a project's
 * root or a thread's worktree; any other folder, present or not, answers `isRepo: false` with
 * every other field empty (128, 129). No remote is simulated: no upstream, no PR, and no ref is
 * the default in `listRefs` (130) although `main` is `isDefaultRef` in the status (126).
 */
import { z } from "zod";
import { decodeWith, nonNegativeInt } from "./commands/decode.js";
import type { RpcOutcome } from "./contract.js";
import type { SimStore } from "./store.js";
import type { Repository } from "./workspace-files.js";

const cwdString = () => z.string().trim().min(1);
const statusInput = z.object({ cwd: cwdString() });
const listRefsInput = z.object({
  cwd: cwdString(),
  query: z.string().trim().min(1).max(256).optional(),
  cursor: nonNegativeInt().optional(),
  includeMatchingRemoteRefs: z.boolean().optional(),
  refKind: z.enum(["all", "local", "remote"]).optional(),
  refresh: z.boolean().optional(),
  limit: z.number().int().min(1).max(200).optional(),
});

/** `vcs.listRefs` without a limit: the simulator's page size (0.0.31's default is not recorded). */
const DEFAULT_REF_LIMIT = 100;

interface Family {
  projectId: string;
  root: string;
}

/** The project whose root or one of whose threads' worktree is `cwd`. */
function familyOf(store: SimStore, cwd: string): Family | undefined {
  for (const project of store.projects.values())
    if (!project.deletedAt && project.workspaceRoot === cwd) return { projectId: project.id, root: cwd };
  for (const record of store.threads.values()) {
    const project = store.projects.get(record.thread.projectId);
    if (record.thread.worktreePath === cwd && project)
      return { projectId: project.id, root: project.workspaceRoot };
  }
  return undefined;
}

function repositoryAt(store: SimStore, cwd: string): Repository | undefined {
  const family = familyOf(store, cwd);
  if (!family) return undefined;
  if (cwd === family.root) return store.workspaces.open(cwd, "main");
  const thread = [...store.threads.values()].find((record) => record.thread.worktreePath === cwd)?.thread;
  return store.workspaces.open(cwd, thread?.branch ?? "main");
}

const NOT_A_REPOSITORY = {
  isRepo: false,
  hasPrimaryRemote: false,
  isDefaultRef: false,
  refName: null,
  hasWorkingTreeChanges: false,
  workingTree: { files: [], insertions: 0, deletions: 0 },
  hasUpstream: false,
  aheadCount: 0,
  behindCount: 0,
  aheadOfDefaultCount: 0,
  pr: null,
};

function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** Changed tracked files with their counts, then untracked ones at 0/0 (fixture 126). */
function workingTree(repository: Repository) {
  const tracked: { path: string; insertions: number; deletions: number }[] = [];
  const untracked: { path: string; insertions: number; deletions: number }[] = [];
  for (const [path, content] of repository.files) {
    const before = repository.head.get(path);
    if (before === undefined) untracked.push({ path, insertions: 0, deletions: 0 });
    else if (before !== content) {
      // Edits in the simulator only append or replace whole files: a shared head is kept.
      const common = content.startsWith(before) ? lineCount(before) : 0;
      tracked.push({ path, insertions: lineCount(content) - common, deletions: lineCount(before) - common });
    }
  }
  for (const path of repository.head.keys())
    if (!repository.files.has(path))
      tracked.push({ path, insertions: 0, deletions: lineCount(repository.head.get(path) ?? "") });
  const byPath = (a: { path: string }, b: { path: string }) =>
    a.path.toLowerCase().localeCompare(b.path.toLowerCase());
  const files = [...tracked.sort(byPath), ...untracked.sort(byPath)];
  return {
    files,
    insertions: files.reduce((sum, file) => sum + file.insertions, 0),
    deletions: files.reduce((sum, file) => sum + file.deletions, 0),
  };
}

export function refreshStatus(store: SimStore, payload: unknown): RpcOutcome {
  const input = decodeWith(statusInput, payload);
  if (!input.ok) return { kind: "die", defect: input.defect };
  const repository = repositoryAt(store, input.value.cwd);
  if (!repository) return { kind: "success", value: NOT_A_REPOSITORY };
  const tree = workingTree(repository);
  return {
    kind: "success",
    value: {
      isRepo: true,
      hasPrimaryRemote: false,
      isDefaultRef: repository.branch === "main",
      refName: repository.branch,
      hasWorkingTreeChanges: tree.files.length > 0,
      workingTree: tree,
      hasUpstream: false,
      aheadCount: 0,
      behindCount: 0,
      aheadOfDefaultCount: 0,
      pr: null,
    },
  };
}

export function listRefs(store: SimStore, payload: unknown): RpcOutcome {
  const input = decodeWith(listRefsInput, payload);
  if (!input.ok) return { kind: "die", defect: input.defect };
  const { cwd, query, cursor = 0, limit = DEFAULT_REF_LIMIT } = input.value;
  const family = familyOf(store, cwd);
  if (!family) {
    return {
      kind: "success",
      value: { refs: [], isRepo: false, hasPrimaryRemote: false, nextCursor: null, totalCount: 0 },
    };
  }
  const current = repositoryAt(store, cwd)?.branch ?? "main";
  const refs = [
    {
      name: "main",
      isRemote: false,
      current: current === "main",
      isDefault: false,
      worktreePath: family.root,
    },
  ];
  for (const record of store.threads.values()) {
    const { thread } = record;
    if (thread.projectId !== family.projectId || !thread.worktreePath || !thread.branch) continue;
    if (refs.some((ref) => ref.name === thread.branch)) continue;
    refs.push({
      name: thread.branch,
      isRemote: false,
      current: thread.worktreePath === cwd,
      isDefault: false,
      worktreePath: thread.worktreePath,
    });
  }
  const matching = query ? refs.filter((ref) => ref.name.toLowerCase().includes(query.toLowerCase())) : refs;
  const page = matching.slice(cursor, cursor + limit);
  const next = cursor + limit < matching.length ? cursor + limit : null;
  return {
    kind: "success",
    value: {
      refs: page,
      isRepo: true,
      hasPrimaryRemote: false,
      nextCursor: next,
      totalCount: matching.length,
    },
  };
}
