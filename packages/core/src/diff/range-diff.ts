/**
 * A range's diff from T3, with the one fallback T3 0.0.31 needs: it loses the ref before a
 * thread's first run once a second run starts (fixtures 133/134). A range from that lost base then
 * starts after the first diffable run and says so; a range that is only the first run answers
 * that run's checkpoint files and counts, without patches. Shared by `t3_diff` and the person's
 * diff page, so both say the same.
 */

import { checkpointChangeSummary, diffableCheckpoints } from "../state/change-summary.js";
import type { DiffRange } from "../state/diff-range.js";
import type { ThreadProjectionInput } from "../state/types.js";
import { baseRefLost, checkpointFiles } from "./checkpoint-files.js";
import type { DiffFileOut } from "./diff-page.js";

/** Asks T3 for the diff between two run ordinals (`getTurnDiff`, or `getFullThreadDiff` from 0). */
export type FetchRangeDiff = (from: number, to: number) => Promise<{ readonly diff: string }>;

export type RangeDiff =
  | { readonly kind: "diff"; readonly text: string; readonly from: number; readonly note?: string }
  | {
      readonly kind: "checkpoint";
      readonly to: number;
      readonly files: DiffFileOut[];
      readonly totals: { files: number; additions: number; deletions: number };
      readonly note: string;
    };

export async function fetchRangeDiff(
  fetchDiff: FetchRangeDiff,
  range: Extract<DiffRange, { kind: "range" }>,
  projection: ThreadProjectionInput,
): Promise<RangeDiff> {
  try {
    const served = await fetchDiff(range.fromTurnCount, range.toTurnCount);
    return { kind: "diff", text: served.diff, from: range.fromTurnCount };
  } catch (error) {
    if (!baseRefLost(error)) throw error;
    const first = diffableCheckpoints(projection).get(range.firstTurnCount);
    const summary = first ? checkpointChangeSummary(first) : undefined;
    const firstLine = summary?.line ?? "unknown";
    if (range.firstTurnCount >= range.toTurnCount) {
      const files = checkpointFiles(first);
      return {
        kind: "checkpoint",
        to: range.toTurnCount,
        files,
        totals: {
          files: files.length,
          additions: summary?.additions ?? 0,
          deletions: summary?.deletions ?? 0,
        },
        note: `this T3 no longer has the state before run ${range.toTurnCount}, so no patch can be shown; its checkpoint records ${firstLine}`,
      };
    }
    const from = range.firstTurnCount;
    const served = await fetchDiff(from, range.toTurnCount);
    return {
      kind: "diff",
      text: served.diff,
      from,
      note: `this T3 no longer has the state before the thread's first run, so the diff starts after run ${from} (that run: ${firstLine})`,
    };
  }
}
