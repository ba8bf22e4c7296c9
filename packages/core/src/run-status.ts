/**
 * Run statuses of Orchestrator V2 (`OrchestrationV2RunStatus`) and the two ways
 * the product classifies them. One list, so that the state projection, the write guards and the
 * conditional send can never disagree about whether a run is still going. Servers may add
 * statuses: every reader tolerates strings outside this list.
 */
export const RUN_STATUSES = [
  "preparing",
  "queued",
  "starting",
  "running",
  "waiting",
  "completed",
  "interrupted",
  "failed",
  "cancelled",
  "rolled_back",
] as const;

export type RunStatus = (typeof RUN_STATUSES)[number];

/** Work is in flight: the run has not ended (queued counts, it will start by itself). */
export const ACTIVE_RUN_STATUSES = ["preparing", "queued", "starting", "running", "waiting"] as const;

/** The run will never change again. */
export const TERMINAL_RUN_STATUSES = [
  "completed",
  "failed",
  "cancelled",
  "interrupted",
  "rolled_back",
] as const;
