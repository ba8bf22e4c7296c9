/**
 * One icon per canonical state of core/state: `ops ls` shows the same state word as the read tools
 * (`t3_threads`), never a second vocabulary of its own.
 */
import type { ThreadState } from "@t3-connector/core/state";

export const STATE_ICON: Readonly<Record<ThreadState, string>> = {
  running: "●",
  needs_intervention: "◆",
  failed: "✕",
  cancelled: "⊘",
  completed: "✓",
  no_run: "·",
  unknown: "?",
};

/** The organisation marks a listing shows beside the state: pinned, snoozed, settled. */
export function organisationMarks(thread: {
  pinned: boolean;
  settled: boolean;
  snoozedUntil: string | null;
}): string[] {
  return [
    ...(thread.pinned ? ["pinned"] : []),
    ...(thread.snoozedUntil === null ? [] : [`snoozed until ${thread.snoozedUntil}`]),
    ...(thread.settled ? ["settled"] : []),
  ];
}
