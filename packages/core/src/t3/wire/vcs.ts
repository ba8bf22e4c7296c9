import { z } from "zod";
import { forwardCompatibleArray, nonNegativeInt } from "./lenient.js";

/**
 * The diff and version-control reads a token with `orchestration:read` may make (0.0.31 and
 * later; fixtures 120–134 and docs/t3-protocol-notes.md). Loose objects: later builds add fields.
 */

/** `orchestration.getTurnDiff` / `getFullThreadDiff`: the output of `git diff --patch` between two checkpoints. */
export const TurnDiffSchema = z.looseObject({
  threadId: z.string(),
  fromTurnCount: nonNegativeInt,
  toTurnCount: nonNegativeInt,
  diff: z.string(),
});
export type TurnDiff = z.output<typeof TurnDiffSchema>;

const WorkingTreeFileSchema = z.looseObject({
  path: z.string(),
  insertions: nonNegativeInt,
  deletions: nonNegativeInt,
});

const ChangeRequestSchema = z.looseObject({
  number: z.number().int(),
  title: z.string(),
  url: z.string(),
  baseRef: z.string().optional(),
  headRef: z.string().optional(),
  state: z.string(),
});

/** `vcs.refreshStatus {cwd}`: a folder that is not a repository answers `isRepo: false` (fixture 128). */
export const VcsStatusSchema = z.looseObject({
  isRepo: z.boolean(),
  hasPrimaryRemote: z.boolean().optional().default(false),
  isDefaultRef: z.boolean().optional().default(false),
  refName: z.string().nullish(),
  hasWorkingTreeChanges: z.boolean().optional().default(false),
  workingTree: z
    .looseObject({
      files: forwardCompatibleArray(WorkingTreeFileSchema),
      insertions: nonNegativeInt,
      deletions: nonNegativeInt,
    })
    .optional()
    .default({ files: [], insertions: 0, deletions: 0 }),
  hasUpstream: z.boolean().optional().default(false),
  aheadCount: nonNegativeInt.optional().default(0),
  behindCount: nonNegativeInt.optional().default(0),
  aheadOfDefaultCount: nonNegativeInt.optional(),
  pr: ChangeRequestSchema.nullish(),
});
export type VcsStatus = z.output<typeof VcsStatusSchema>;

const VcsRefSchema = z.looseObject({
  name: z.string(),
  isRemote: z.boolean().optional(),
  remoteName: z.string().optional(),
  current: z.boolean(),
  isDefault: z.boolean(),
  worktreePath: z.string().nullable(),
});
export type VcsRef = z.output<typeof VcsRefSchema>;

/** `vcs.listRefs {cwd, query?, cursor?, limit?}`: a numeric offset cursor (fixture 131). */
export const VcsRefListSchema = z.looseObject({
  refs: forwardCompatibleArray(VcsRefSchema),
  isRepo: z.boolean(),
  hasPrimaryRemote: z.boolean().optional().default(false),
  nextCursor: nonNegativeInt.nullable(),
  totalCount: nonNegativeInt,
});
export type VcsRefList = z.output<typeof VcsRefListSchema>;

/** `vcs.listRefs`' own limit (`GIT_LIST_BRANCHES_MAX_LIMIT` in 0.0.31's contract). */
export const VCS_LIST_REFS_MAX_LIMIT = 200;
