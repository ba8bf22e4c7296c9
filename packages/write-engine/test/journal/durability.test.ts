import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isConnectorError } from "@t3-connector/core";
import { makeTempDir, request, type TempDir } from "@t3-connector/test-support/journal-helpers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { journalKey, openJournal } from "../../src/journal/index.js";
import { type FaultStep, faultyFs } from "./support/faulty-fs.js";

let temp: TempDir;

beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  await temp.remove();
});

// The writer killed with SIGKILL mid-write runs real child processes: killed-writer.e2e.test.ts.
describe("durability", () => {
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
