/**
 * How a listening `serve --http` ends: at the stop signal (default: the first SIGINT or SIGTERM),
 * after draining the calls in flight, or at once when the background start-up check refuses an
 * environment. Answers the exit code.
 */
import type { LeveledLog } from "@t3-connector/core/cli-support";
import type { StartupGate } from "../cli/startup-gate.js";
import { READ_SERVER_NAME } from "../server-name.js";

export async function serveUntilStopped(
  gate: StartupGate,
  stopSignal: Promise<string> | undefined,
  shutDown: () => Promise<void>,
  log: LeveledLog,
): Promise<number> {
  let stopping = false;
  void gate.done.then((check) => {
    if (stopping || check.refusals.length > 0) return;
    for (const warning of check.warnings) log.warn(`${READ_SERVER_NAME}: warning: ${warning}`);
  });
  const signals = stopSignal === undefined ? listenForSignals() : undefined;
  const stop = stopSignal ?? (signals as SignalListener).received;
  const outcome = await Promise.race([
    stop.then((signal) => ({ signal })),
    gate.refused.then((refusal) => ({ refusal })),
  ]);
  signals?.dispose();
  stopping = true;
  if ("refusal" in outcome) {
    log.error(`${READ_SERVER_NAME}: refusing to start: ${outcome.refusal.error}`);
    return 1;
  }
  // Said once the listener has stopped accepting (its close starts synchronously), so whoever
  // reads this line and connects is refused, never queued and reset.
  const closing = shutDown();
  log.info(`${READ_SERVER_NAME}: ${outcome.signal}: finishing the calls in flight, refusing new ones`);
  await closing;
  return 0;
}

interface SignalListener {
  /** The first SIGINT or SIGTERM. */
  readonly received: Promise<string>;
  dispose(): void;
}

function listenForSignals(): SignalListener {
  let on: (signal: NodeJS.Signals) => void = () => {};
  const received = new Promise<string>((resolve) => {
    on = (signal) => resolve(signal);
  });
  process.on("SIGINT", on);
  process.on("SIGTERM", on);
  return {
    received,
    dispose: () => {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
    },
  };
}
