import type { ChildProcess } from "node:child_process";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isConnectorError } from "@t3-connector/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { journalKey, openJournal } from "../../src/journal/index.js";
import { collectLines, killHard, spawnTsChild } from "./support/child.js";
import { type FaultStep, faultyFs } from "./support/faulty-fs.js";
import { makeTempDir, request, type TempDir } from "./support/helpers.js";

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

  it.each<FaultStep>(["writeFile", "sync", "rename"])(
    "rejects with journal_unavailable when the disk fails at %s, stays closed, and keeps what was acknowledged",
    async (step) => {
      const disk = faultyFs();
      const failures: string[] = [];
      const journal = await openJournal({
        stateDir: temp.stateDir,
        fs: disk.fs,
        onUnavailable: (error) => failures.push(error.code),
      });
      const first = await journal.reserve(request("op-1"));
      await journal.markUncertain(first.record.key, { commandId: "c-1" });

      disk.failAt(step);
      // The reservations ride on the next write (markUncertain's), which all five share and which fails.
      const concurrent = await Promise.allSettled(
        Array.from({ length: 5 }, (_, index) =>
          journal
            .reserve(request(`op-2-${index}`))
            .then(({ record }) => journal.markUncertain(record.key, { commandId: `c-2-${index}` })),
        ),
      );
      for (const outcome of concurrent) {
        expect(outcome.status).toBe("rejected");
        expect(isConnectorError(outcome.status === "rejected" && outcome.reason, "journal_unavailable")).toBe(
          true,
        );
      }
      disk.failAt(null);
      // Fail closed: even with a healthy disk again, this instance accepts nothing more.
      await expect(journal.reserve(request("op-3"))).rejects.toMatchObject({ code: "journal_unavailable" });
      await expect(journal.complete(first.record.key, { sequence: 1 })).rejects.toMatchObject({
        code: "journal_unavailable",
      });
      expect(failures).toEqual(["journal_unavailable"]);
      await journal.close();

      const reopened = await openJournal({ stateDir: temp.stateDir });
      try {
        expect((await reopened.get(first.record.key))?.state).toBe("uncertain");
        expect(await reopened.get(journalKey(request("op-2-0")))).toBeUndefined();
        expect(await reopened.get(journalKey(request("op-3")))).toBeUndefined();
      } finally {
        await reopened.close();
      }
    },
  );

  it("becomes unavailable when sealing a segment fails in the background, losing nothing", async () => {
    const disk = faultyFs();
    let unavailable: (code: string) => void = () => undefined;
    const reported = new Promise<string>((resolve) => {
      unavailable = resolve;
    });
    const journal = await openJournal({
      stateDir: temp.stateDir,
      fs: disk.fs,
      segmentRecords: 2,
      recentRecords: 0,
      onUnavailable: (error) => unavailable(error.code),
    });
    disk.failAt("sync", /segment-/);
    const keys: string[] = [];
    for (const operationId of ["op-1", "op-2"]) {
      const { record } = await journal.reserve(request(operationId));
      await journal.refuse(record.key, { code: "scope_denied", message: "outside the lease" });
      keys.push(record.key);
    }
    expect(await reported).toBe("journal_unavailable");
    await expect(journal.reserve(request("op-3"))).rejects.toMatchObject({ code: "journal_unavailable" });
    await journal.close();

    const reopened = await openJournal({ stateDir: temp.stateDir });
    try {
      for (const key of keys) expect((await reopened.get(key))?.state).toBe("refused");
      expect(reopened.stats().segments).toBe(0);
    } finally {
      await reopened.close();
    }
  });

  it("removes temp files that an interrupted write left behind when it opens", async () => {
    const journal = await openJournal({ stateDir: temp.stateDir });
    await journal.reserve(request("op-1"));
    await journal.close();
    const leftover = join(temp.stateDir, "journal", ".active.json.4242.7.tmp");
    await writeFile(leftover, '{"torn', { mode: 0o600 });

    const reopened = await openJournal({ stateDir: temp.stateDir });
    try {
      expect((await readdir(join(temp.stateDir, "journal"))).sort()).toEqual([
        "active.json",
        "manifest.json",
      ]);
      expect((await reopened.get(journalKey(request("op-1"))))?.state).toBe("preparing");
    } finally {
      await reopened.close();
    }
  });
});
