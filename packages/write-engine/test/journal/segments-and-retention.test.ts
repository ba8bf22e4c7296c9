import * as nodeFs from "node:fs/promises";
import { join } from "node:path";
import { DAY_MS, request } from "@t3-connector/test-support/journal-helpers";
import { describe, expect, it } from "vitest";
import { type Journal, type JournalFs, type JournalRecord, journalKey } from "../../src/journal/index.js";
import { useJournalDir } from "./support/journal-dir.js";

const journalDir = useJournalDir({ segmentRecords: 10, recentRecords: 5 });
const open = journalDir.open;

async function close(journal: Journal): Promise<void> {
  journalDir.release(journal);
  await journal.close();
}

/** Reserve, then bring to a settled state: completed for even i, refused for odd i. */
async function settled(journal: Journal, operationId: string, i: number): Promise<JournalRecord> {
  const { record } = await journal.reserve(request(operationId, { input: { i } }));
  if (i % 2 === 1) return journal.refuse(record.key, { code: "scope_denied", message: "outside the lease" });
  await journal.markUncertain(record.key, { commandId: `cmd-${i}` });
  return journal.complete(record.key, { sequence: i });
}

/** The real fs, counting how often each sealed segment file is opened. */
function countingFs(): { fs: JournalFs; segmentOpens: () => number; reset(): void } {
  let opens = 0;
  const openCounted = ((path: string, ...rest: [number, number?]) => {
    if (/segment-\d+\.json$/.test(path)) opens += 1;
    return nodeFs.open(path, ...rest);
  }) as JournalFs["open"];
  return {
    fs: { ...nodeFs, open: openCounted },
    segmentOpens: () => opens,
    reset: () => {
      opens = 0;
    },
  };
}

const segmentNames = async () =>
  (await nodeFs.readdir(join(journalDir.stateDir, "journal")))
    .filter((name) => name.startsWith("segment-"))
    .sort();

describe("segments", () => {
  it("seals old settled records into read-only segments, keeping open and recent ones active", async () => {
    const journal = await open();
    const open1 = await journal.reserve(request("open-preparing"));
    const open2 = await journal.reserve(request("open-uncertain"));
    await journal.markUncertain(open2.record.key, { commandId: "cmd-open" });
    for (let i = 0; i < 25; i += 1) {
      journalDir.clock.advance(1_000);
      await settled(journal, `op-${i}`, i);
    }
    await journal.list(); // runs after the sealing queued so far
    const firstSegments = await segmentNames();
    expect(firstSegments.length).toBeGreaterThanOrEqual(1);
    const firstBytes = await nodeFs.readFile(
      join(journalDir.stateDir, "journal", firstSegments[0] as string),
    );

    for (let i = 25; i < 47; i += 1) {
      journalDir.clock.advance(1_000);
      await settled(journal, `op-${i}`, i);
    }
    await journal.list();
    const stats = journal.stats();
    expect(stats.segments).toBe((await segmentNames()).length);
    expect(stats.segments).toBeGreaterThanOrEqual(3);
    expect(stats.retained).toBe(49);
    expect(stats.open).toBe(2);
    expect(stats.active).toBeLessThan(2 + 15);
    // A sealed segment is never rewritten.
    expect(await nodeFs.readFile(join(journalDir.stateDir, "journal", firstSegments[0] as string))).toEqual(
      firstBytes,
    );
    // Open records are never sealed.
    const active = JSON.parse(
      await nodeFs.readFile(join(journalDir.stateDir, "journal", "active.json"), "utf8"),
    );
    expect(Object.keys(active.records)).toEqual(expect.arrayContaining([open1.record.key, open2.record.key]));
  });

  it("recognises repeats and conflicts across segments after reopen, reading at most the one segment needed", async () => {
    const first = await open();
    const before = new Map<string, JournalRecord>();
    for (let i = 0; i < 60; i += 1) {
      journalDir.clock.advance(1_000);
      const record = await settled(first, `op-${i}`, i);
      before.set(record.key, record);
    }
    await first.list();
    expect(first.stats().segments).toBeGreaterThanOrEqual(4);
    await close(first);

    const disk = countingFs();
    const reopened = await open({ fs: disk.fs });
    expect(reopened.stats()).toMatchObject({ retained: 60, segments: first.stats().segments });
    disk.reset();

    // The index alone answers a conflict and a new key: no segment is read.
    await expect(reopened.reserve(request("op-0", { input: { i: "changed" } }))).rejects.toMatchObject({
      code: "operation_conflict",
    });
    expect((await reopened.reserve(request("op-new"))).kind).toBe("reserved");
    expect(disk.segmentOpens()).toBe(0);

    // A replay of a sealed record reads its one segment, once.
    const replay = await reopened.reserve(request("op-0", { input: { i: 0 } }));
    expect(replay).toEqual({ kind: "existing", record: before.get(journalKey(request("op-0"))) });
    await reopened.reserve(request("op-1", { input: { i: 1 } }));
    expect(disk.segmentOpens()).toBe(1);

    for (const [key, record] of before) expect(await reopened.get(key)).toEqual(record);
  });

  it("round-trips 10,000 records through a close and a reopen", async () => {
    const journal = await open({ segmentRecords: 500, recentRecords: 100 });
    const total = 10_000;
    const keys: string[] = [];
    for (let start = 0; start < total; start += 500) {
      const batch = Array.from({ length: 500 }, (_, offset) => start + offset);
      const reserved = await Promise.all(
        batch.map((i) => journal.reserve(request(`op-${i}`, { input: { i } }))),
      );
      keys.push(...reserved.map((result) => result.record.key));
      await Promise.all(
        reserved.map(async ({ record }, offset) => {
          const i = start + offset;
          if (i % 10 === 9) return journal.refuse(record.key, { code: "scope_denied", message: "no" });
          await journal.markUncertain(record.key, { commandId: `cmd-${i}` });
          if (i % 100 === 0) return; // 100 stay uncertain
          return journal.complete(record.key, { sequence: i });
        }),
      );
    }
    const before = await journal.list();
    expect(before).toHaveLength(total);
    expect(journal.stats().segments).toBeGreaterThanOrEqual(15);
    await close(journal);

    const reopened = await open({ segmentRecords: 500, recentRecords: 100 });
    expect(reopened.stats()).toMatchObject({ retained: total, open: 100 });
    const after = await reopened.list();
    expect(new Map(after.map((record) => [record.key, record]))).toEqual(
      new Map(before.map((record) => [record.key, record])),
    );
    expect((await reopened.listUncertain()).map((record) => record.operationId).sort()).toEqual(
      Array.from({ length: 100 }, (_, n) => `op-${n * 100}`).sort(),
    );
    expect((await reopened.reserve(request("op-1234", { input: { i: 1234 } }))).record.receipt).toEqual({
      sequence: 1234,
    });
  }, 60_000);
});

describe("retention", () => {
  it("prunes settled records after the published retention and never prunes preparing or uncertain ones", async () => {
    const journal = await open();
    expect(journal.retentionMs).toBe(7 * DAY_MS);
    const preparing = await journal.reserve(request("open-preparing"));
    const uncertain = await journal.reserve(request("open-uncertain"));
    await journal.markUncertain(uncertain.record.key, { commandId: "cmd-open" });
    for (let i = 0; i < 30; i += 1) await settled(journal, `old-${i}`, i);
    await journal.list();
    expect(journal.stats().segments).toBeGreaterThan(0);

    journalDir.clock.advance(7 * DAY_MS); // exactly the retention: still kept
    expect(await journal.prune()).toEqual({ records: 0, segments: 0 });
    journalDir.clock.advance(1);
    const fresh = await settled(journal, "fresh", 0);
    const pruned = await journal.prune();
    expect(pruned.records + pruned.segments).toBeGreaterThan(0);
    expect(journal.stats()).toMatchObject({ retained: 3, open: 2, segments: 0 });
    expect(await segmentNames()).toEqual([]);
    expect(await journal.get(journalKey(request("old-3")))).toBeUndefined();
    expect((await journal.get(fresh.key))?.state).toBe("completed");

    // A year later, the open records are still there, after a reopen too.
    journalDir.clock.advance(365 * DAY_MS);
    await journal.prune();
    await close(journal);
    const reopened = await open();
    expect((await reopened.get(preparing.record.key))?.state).toBe("preparing");
    expect((await reopened.get(uncertain.record.key))?.state).toBe("uncertain");
    expect(await reopened.get(fresh.key)).toBeUndefined();
    // An expired operationId is simply new again (its derived ids still let T3 dedupe it).
    expect((await reopened.reserve(request("old-3", { input: { i: 3 } }))).kind).toBe("reserved");
  });
});
