/**
 * Diffs: the one parser of T3's unified diffs and the rules that cut a patch to a budget. Pure:
 * nothing here reads a file or the network.
 */

export { baseRefLost, checkpointFiles } from "./checkpoint-files.js";
export {
  DIFF_CAPS,
  type DiffCaps,
  type DiffFileOut,
  type DiffPage,
  diffPage,
  onePathPage,
} from "./diff-page.js";
export { headerPath, readQuoted } from "./git-path.js";
export { type CappedText, cappedFilePatch, capText, utf8Bytes } from "./patch-cap.js";
export { type FetchRangeDiff, fetchRangeDiff, type RangeDiff } from "./range-diff.js";
export {
  type DiffFile,
  type DiffFileStatus,
  filePatch,
  type ParsedDiff,
  parseUnifiedDiff,
} from "./unified-diff.js";
