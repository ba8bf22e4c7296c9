/**
 * What the simulated agents were set to do, and in which runtime mode: a record for tests, never
 * on the wire. T3 gives a run's provider turn the thread's `runtimeMode` of the moment the run
 * starts (docs/t3-protocol-notes.md, "Runs and threads"); a run steered, promoted into or answered
 * goes on in the mode its turn started in. Tests count entries above a ceiling to prove that a
 * refused write made no agent run (ADR 0037).
 */
import type { AgentWorkKind, SimStore, ThreadRecord } from "./store.js";

/** A run just took the provider: its turn runs in the thread's mode of this moment. */
export function recordTurnStarted(store: SimStore, record: ThreadRecord, runId: string): void {
  store.agentWork.push({
    threadId: record.thread.id,
    runId,
    kind: "turn_started",
    runtimeMode: record.thread.runtimeMode,
    at: store.iso(),
  });
}

/** A running turn got new input: it goes on in the mode it started in (the thread's, if unknown). */
export function recordTurnInput(
  store: SimStore,
  record: ThreadRecord,
  runId: string,
  kind: Exclude<AgentWorkKind, "turn_started">,
): void {
  const started = store.agentWork.findLast((work) => work.runId === runId && work.kind === "turn_started");
  store.agentWork.push({
    threadId: record.thread.id,
    runId,
    kind,
    runtimeMode: started?.runtimeMode ?? record.thread.runtimeMode,
    at: store.iso(),
  });
}
