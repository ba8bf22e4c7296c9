/**
 * TEST HOOK — never active unless `T3C_GATE_CRASH_AT` is set in the environment of a process that
 * opts in (only the crash test's child entry calls `crashHookFromEnv`; the CLI never does).
 * It wraps the journal so the process SIGKILLs itself at one point of the write path, to prove that
 * a restart neither loses an acknowledged record nor resends anything:
 *
 * - `after_reserve`: the `preparing` record exists in memory only (a reservation rides on the
 *   next write, ADR 0006), nothing was sent;
 * - `after_uncertain`: the derived ids are durable, the send has not happened;
 * - `after_send`: T3 acknowledged the send, `completed` is not written yet, nothing was answered;
 * - `answered_before_completed`: the caller has its `completed` answer, which the engine gives
 *   without waiting for `completed` to reach the disk (ADR 0062), and `completed` never does: the
 *   journal write is held back, the record stays `uncertain` on disk, and the test kills the
 *   process once the answer arrived;
 * - `after_completed`: `completed` is durable; the answer, which did not wait for it, may or may
 *   not have reached the caller.
 */
import type { Journal } from "@t3-connector/write-engine/engine";

export const CRASH_ENV = "T3C_GATE_CRASH_AT";
export const CRASH_POINTS = [
  "after_reserve",
  "after_uncertain",
  "after_send",
  "answered_before_completed",
  "after_completed",
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export type JournalHook = (journal: Journal) => Journal;

function die(): never {
  process.kill(process.pid, "SIGKILL");
  // SIGKILL is not catchable; this only satisfies the type checker while the kernel acts.
  throw new Error("unreachable");
}

/** A journal that SIGKILLs the process at `point` (the first time it is reached). */
export function crashingJournal(point: CrashPoint): JournalHook {
  return (journal) =>
    new Proxy(journal, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        const method = value as (...args: unknown[]) => unknown;
        if (property === "reserve" && point === "after_reserve") {
          return async (...args: unknown[]) => {
            const result = (await method.apply(target, args)) as { kind: string };
            if (result.kind === "reserved") die();
            return result;
          };
        }
        if (property === "markUncertain" && point === "after_uncertain") {
          return async (...args: unknown[]) => {
            await method.apply(target, args);
            die();
          };
        }
        if (property === "complete" && point === "after_send") {
          // `complete` is the first thing the engine does once T3 acknowledged the send.
          return () => die();
        }
        if (property === "complete" && point === "answered_before_completed") {
          // Never written, never in memory: the disk keeps `uncertain` until the test kills us.
          return () => new Promise<never>(() => undefined);
        }
        if (property === "complete" && point === "after_completed") {
          return async (...args: unknown[]) => {
            await method.apply(target, args);
            die();
          };
        }
        return method.bind(target);
      },
    });
}

/** The hook named by `T3C_GATE_CRASH_AT`, or undefined (the normal case). */
export function crashHookFromEnv(env: Readonly<Record<string, string | undefined>>): JournalHook | undefined {
  const point = env[CRASH_ENV];
  if (point === undefined || point === "") return undefined;
  if (!(CRASH_POINTS as readonly string[]).includes(point)) throw new Error(`unknown ${CRASH_ENV}: ${point}`);
  return crashingJournal(point as CrashPoint);
}
