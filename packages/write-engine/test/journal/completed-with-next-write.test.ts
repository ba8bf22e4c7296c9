import * as nodeFs from "node:fs/promises";
import { join } from "node:path";
import { makeTempDir, request, type TempDir } from "@t3-connector/test-support/journal-helpers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type JournalFs, openJournal } from "../../src/journal/index.js";
import { faultyFs } from "./support/faulty-fs.js";

// ADR 0066: a `completed` the caller does not wait for rides on the journal's next write, or is
// written on its own after `completedWriteDelayMs`; a reader of the key or a close writes it at once.
const AN_HOUR = 3_600_000;

let temp: TempDir;
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  await temp.remove();
});

/** The real file system, counting the rewrites of the active segment (its renames). */
function countingFs(): { fs: JournalFs; rewrites: () => number } {
  let rewrites = 0;
  const rename: JournalFs["rename"] = async (from, to) => {
    if (String(to).endsWith("active.json")) rewrites += 1;
    return nodeFs.rename(from, to);
  };
  return { fs: { ...nodeFs, rename }, rewrites: () => rewrites };
}

/** The state of `key` in the active segment on disk, as a restarted gate would load it. */
async function stateOnDisk(key: string): Promise<string | undefined> {
  const text = await nodeFs.readFile(join(temp.stateDir, "journal", "active.json"), "utf8");
  const document = JSON.parse(text) as { records: Record<string, { state: string }> };
  return document.records[key]?.state;
}

async function uncertainWrite(journal: Awaited<ReturnType<typeof openJournal>>, operationId: string) {
  const { record } = await journal.reserve(request(operationId));
  await journal.markUncertain(record.key, { commandId: `c-${operationId}` });
  return record.key;
}

describe("a completed that waits for the next write", () => {
  it("rides on the next write of another record: one rewrite for both", async () => {
    const disk = countingFs();
    const journal = await openJournal({
      stateDir: temp.stateDir,
      fs: disk.fs,
      completedWriteDelayMs: AN_HOUR,
    });
    try {
      const first = await uncertainWrite(journal, "op-1");
      const before = disk.rewrites();
      const completed = journal.complete(first, { sequence: 7 }, { withNextWrite: true });
      await new Promise((resolve) => setImmediate(resolve));
      expect(disk.rewrites()).toBe(before);
      expect(await stateOnDisk(first)).toBe("uncertain");

      await uncertainWrite(journal, "op-2");
      await completed;
      expect(disk.rewrites()).toBe(before + 1);
      expect(await stateOnDisk(first)).toBe("completed");
    } finally {
      await journal.close();
    }
  });

  it("is written at once for a reader of its key, who never sees a state a crash could take back", async () => {
    const journal = await openJournal({ stateDir: temp.stateDir, completedWriteDelayMs: AN_HOUR });
    try {
      const key = await uncertainWrite(journal, "op-1");
      void journal.complete(key, { sequence: 7 }, { withNextWrite: true });
      const read = await journal.get(key);
      expect(read?.state).toBe("completed");
      expect(await stateOnDisk(key)).toBe("completed");
      // A repeat of the operationId replays the durable record.
      const repeat = await journal.reserve(request("op-1"));
      expect(repeat).toMatchObject({ kind: "existing", record: { state: "completed" } });
    } finally {
      await journal.close();
    }
  });

  it("is written on its own when no other write comes", async () => {
    const journal = await openJournal({ stateDir: temp.stateDir, completedWriteDelayMs: 0 });
    try {
      const key = await uncertainWrite(journal, "op-1");
      await journal.complete(key, { sequence: 7 }, { withNextWrite: true });
      expect(await stateOnDisk(key)).toBe("completed");
    } finally {
      await journal.close();
    }
  });

  it("is written by a clean stop, and a reopened journal has it", async () => {
    const journal = await openJournal({ stateDir: temp.stateDir, completedWriteDelayMs: AN_HOUR });
    const key = await uncertainWrite(journal, "op-1");
    const completed = journal.complete(key, { sequence: 7 }, { withNextWrite: true });
    await journal.close();
    await completed;
    const reopened = await openJournal({ stateDir: temp.stateDir });
    try {
      expect(await reopened.get(key)).toMatchObject({ state: "completed", receipt: { sequence: 7 } });
    } finally {
      await reopened.close();
    }
  });

  it("a listing waits for it, and finds it completed", async () => {
    const journal = await openJournal({ stateDir: temp.stateDir, completedWriteDelayMs: AN_HOUR });
    try {
      const key = await uncertainWrite(journal, "op-1");
      void journal.complete(key, { sequence: 7 }, { withNextWrite: true });
      expect(await journal.listUncertain()).toEqual([]);
      expect(await stateOnDisk(key)).toBe("completed");
    } finally {
      await journal.close();
    }
  });

  it("fails with the write that carries it: the journal closes, and the disk keeps uncertain for settlement", async () => {
    const disk = faultyFs();
    const failures: string[] = [];
    const journal = await openJournal({
      stateDir: temp.stateDir,
      fs: disk.fs,
      completedWriteDelayMs: AN_HOUR,
      onUnavailable: (error) => failures.push(error.code),
    });
    const key = await uncertainWrite(journal, "op-1");
    const completed = journal.complete(key, { sequence: 7 }, { withNextWrite: true });
    disk.failAt("sync");
    const { record } = await journal.reserve(request("op-2"));
    await expect(journal.markUncertain(record.key, { commandId: "c-op-2" })).rejects.toMatchObject({
      code: "journal_unavailable",
    });
    await expect(completed).rejects.toMatchObject({ code: "journal_unavailable" });
    expect(failures).toEqual(["journal_unavailable"]);
    await journal.close();
    const reopened = await openJournal({ stateDir: temp.stateDir });
    try {
      expect((await reopened.get(key))?.state).toBe("uncertain");
    } finally {
      await reopened.close();
    }
  });
});
