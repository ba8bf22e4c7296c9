/**
 * One display status per thread, most urgent first (t3ctl's rule): a thread that is both running
 * and settled shows as running. Derived only from the canonical state of core/state.
 */
import type { ThreadSummary } from "@t3-connector/core/state";

export const DISPLAY_STATUSES = ["needs_you", "failed", "running", "queued", "idle", "settled"] as const;
export type DisplayStatus = (typeof DISPLAY_STATUSES)[number];

export const STATUS_ICON: Readonly<Record<DisplayStatus, string>> = {
  running: "●",
  needs_you: "◆",
  failed: "✕",
  queued: "○",
  idle: "·",
  settled: "✓",
};

const QUEUED_RUN_STATUSES = new Set(["preparing", "queued", "starting"]);

export function displayStatus(
  summary: Pick<ThreadSummary, "state" | "statusRun" | "settled">,
): DisplayStatus {
  if (summary.state === "needs_intervention") return "needs_you";
  if (summary.state === "running") {
    return summary.statusRun !== null && QUEUED_RUN_STATUSES.has(summary.statusRun) ? "queued" : "running";
  }
  if (summary.settled) return "settled";
  if (summary.state === "failed") return "failed";
  return "idle";
}
