import { calledEnvironmentSchema, locatingEnvironmentInput } from "@t3-connector/mcp-tools/read-contracts";
import * as z from "zod";
import { readThreadWorktree, WORKTREE_LIMITS } from "../diffs/thread-worktree.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../read-tool.js";

const inputSchema = z.strictObject({
  environment: locatingEnvironmentInput,
  threadId: z.string().min(1),
  cursor: z.string().min(1).optional().describe("nextCursor of the previous answer: the next worktrees."),
});

const count = z.number().int().min(0);

const outputSchema = z.object({
  environment: calledEnvironmentSchema,
  threadId: z.string(),
  folder: z.object({
    path: z.string().nullable(),
    source: z.enum(["thread_worktree", "project_root", "none"]),
  }),
  isRepo: z.boolean(),
  branch: z.string().nullable(),
  isDefaultBranch: z.boolean(),
  hasWorkingTreeChanges: z.boolean(),
  workingTree: z.object({
    files: z.array(z.object({ path: z.string(), additions: count, deletions: count })),
    additions: count,
    deletions: count,
    truncated: z.boolean(),
  }),
  upstream: z.object({ hasUpstream: z.boolean(), ahead: count, behind: count }),
  aheadOfDefault: count.nullable(),
  pullRequest: z
    .object({
      number: z.number().int(),
      title: z.string(),
      url: z.string(),
      state: z.string(),
      baseBranch: z.string().nullable(),
    })
    .nullable(),
  worktrees: z.array(z.object({ branch: z.string(), path: z.string(), isThreadFolder: z.boolean() })),
  nextCursor: z.string().optional(),
});

export const t3WorktreeTool = defineReadTool({
  name: "t3_worktree",
  title: "Where a thread works (branch and worktree)",
  description:
    "The folder a thread works in (its worktree, else its project's root, as T3 recorded them) and its git state: the branch and whether it is the default, the uncommitted files with +/-, ahead/behind its upstream and the default branch, the pull request T3 knows, " +
    `and the project's worktrees (${WORKTREE_LIMITS.worktrees} a page, nextCursor). A folder that is not a repository answers isRepo false.`,
  inputSchema,
  outputSchema,
  annotations: READ_ONLY_ANNOTATIONS,
  handler(context, input, extra) {
    return readThreadWorktree(context, input, extra.signal);
  },
});
