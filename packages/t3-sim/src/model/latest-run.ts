import type { ThreadRecord } from "./store.js";
import type { Run } from "./types.js";

/** A thread's newest run (the highest ordinal), whatever its status. */
export function latestRun(record: ThreadRecord): Run | undefined {
  let latest: Run | undefined;
  for (const run of record.runs.values()) if (!latest || run.ordinal > latest.ordinal) latest = run;
  return latest;
}
