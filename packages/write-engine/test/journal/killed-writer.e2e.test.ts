/**
 * The journal's writer killed with SIGKILL in the middle of its writes, three times over: real
 * child processes, so this lives in the e2e tier (the unit tier runs everything in process).
 */
import type { ChildProcess } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { makeTempDir, type TempDir } from "@t3-connector/test-support/journal-helpers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { journalKey, openJournal } from "../../src/journal/index.js";
import { collectLines, killHard, spawnTsChild } from "./support/child.js";

let temp: TempDir;
const children: ChildProcess[] = [];

beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  await Promise.all(children.splice(0).map(killHard));
  await temp.remove();
});

/**
 * Which final states are consistent with a step the writer acknowledged before it was killed.
 * A reservation is not written by itself (ADR 0006, fsync budget): a `preparing` record may be
 * absent after a kill, which is safe because nothing is sent before `uncertain` is durable.
 */
const STILL_TRUE_AFTER: Record<string, Array<string | undefined>> = {
  preparing: [undefined, "preparing", "uncertain", "completed", "refused"],
  uncertain: ["uncertain", "completed"],
  completed: ["completed"],
  refused: ["refused"],
};

describe("durability", () => {
  // Three children that each load TypeScript through a loader: 22 s on this shared machine at load 12.
  it("keeps every acknowledged step when the writer is killed with SIGKILL in the middle of its writes", {
    timeout: 90_000,
  }, async () => {
    const acknowledged = new Map<string, string>();
    let steps = 0;
    // Each round reopens the directory the previous, killed, round left behind: its stale lock,
    // maybe a temp file, maybe a segment sealed just before the kill.
    for (const [round, killAfter] of [60, 190, 115].entries()) {
      const child = spawnTsChild("journal-writer-child.ts", [temp.stateDir, `r${round}`]);
      children.push(child);
      const output = collectLines(child);
      await output.waitFor(1 + killAfter);
      await killHard(child);
      expect(output.lines[0]).toBe("ready");
      for (const line of output.lines.slice(1)) {
        const [state, operationId] = line.split(" ");
        if (state === undefined || operationId === undefined) continue;
        acknowledged.set(operationId, state);
        steps += 1;
      }
    }
    expect(steps).toBeGreaterThanOrEqual(60 + 190 + 115);

    const journal = await openJournal({ stateDir: temp.stateDir, segmentRecords: 7, recentRecords: 3 });
    try {
      expect(journal.stats().segments).toBeGreaterThan(0);
      for (const [operationId, state] of acknowledged) {
        const key = journalKey({
          environmentId: "env-a",
          destination: "t3://env-a",
          caller: "channel:crash",
          operationId,
        });
        const record = await journal.get(key);
        if (state !== "preparing") expect(record, `${operationId} acknowledged as ${state}`).toBeDefined();
        expect(STILL_TRUE_AFTER[state]).toContain(record?.state);
        const index = Number(operationId.split("-")[1]);
        if (record?.state === "uncertain" || record?.state === "completed") {
          expect(record.derivedIds).toEqual({ commandId: `cmd-${index}` });
        }
        if (record?.state === "completed") expect(record.receipt).toEqual({ sequence: index });
      }
      const names = await readdir(join(temp.stateDir, "journal"));
      expect(names.filter((name) => name.endsWith(".tmp"))).toEqual([]);
    } finally {
      await journal.close();
    }
  });
});
