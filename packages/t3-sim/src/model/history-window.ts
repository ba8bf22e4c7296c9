/**
 * Which timeline rows a bounded snapshot and a history page hold, after current upstream's
 * `apps/server/src/orchestration-v2/threadHistoryPaging.ts` (@4d698763): the snapshot keeps the
 * last 10 user turns, an older page the 20 before its cursor; a turn starts at a `user_message`
 * row and is never split. Histories without any turn start fall back to 75 rows and 1 MiB.
 * `payloadBudgetExceeded` says the kept rows' JSON is over 1 MiB (always present on the wire).
 */
import type { ProjectedTurnItem } from "./types.js";

export const SNAPSHOT_USER_TURNS = 10;
export const OLDER_PAGE_USER_TURNS = 20;
export const MAX_ITEMS_WITHOUT_TURNS = 75;
export const MAX_ENCODED_BYTES = 1_048_576;

export interface WindowPolicy {
  /** A fixed row count (the `historyPageSize` test option); otherwise upstream's turn policy. */
  readonly fixedRows?: number;
}

export interface RowWindow {
  /** Index of the first kept row; rows [start, end) are kept. */
  readonly start: number;
  readonly payloadBudgetExceeded: boolean;
}

/** Whether the rows' JSON is over `MAX_ENCODED_BYTES` in UTF-8. */
function overBudget(rows: readonly ProjectedTurnItem[]): boolean {
  const text = JSON.stringify(rows);
  // A UTF-16 code unit is at most 3 UTF-8 bytes: a short text is under without counting its bytes.
  if (text.length * 3 <= MAX_ENCODED_BYTES) return false;
  return Buffer.byteLength(text, "utf8") > MAX_ENCODED_BYTES;
}

/** The rows kept before `end` when at most `userTurns` turns fit. */
export function windowBefore(
  rows: readonly ProjectedTurnItem[],
  end: number,
  userTurns: number,
  policy: WindowPolicy,
): RowWindow {
  if (policy.fixedRows !== undefined) {
    const start = Math.max(0, end - policy.fixedRows);
    return { start, payloadBudgetExceeded: overBudget(rows.slice(start, end)) };
  }
  let turns = 0;
  let start = end;
  let sawTurnStart = false;
  for (let index = end - 1; index >= 0; index--) {
    if (rows[index]?.item.type !== "user_message") continue;
    sawTurnStart = true;
    turns += 1;
    start = index;
    if (turns === userTurns) break;
  }
  if (!sawTurnStart) {
    start = Math.max(0, end - MAX_ITEMS_WITHOUT_TURNS);
    // Drop the oldest rows while the rest is over; the last answer is the window's own flag, so the
    // window is not encoded once more to learn it.
    let over = overBudget(rows.slice(start, end));
    while (start < end - 1 && over) {
      start += 1;
      over = overBudget(rows.slice(start, end));
    }
    return { start, payloadBudgetExceeded: over };
  }
  if (turns < userTurns) start = 0;
  return { start, payloadBudgetExceeded: overBudget(rows.slice(start, end)) };
}
