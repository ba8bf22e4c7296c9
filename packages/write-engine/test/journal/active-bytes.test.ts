import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ManualClock, makeTempDir, request, type TempDir } from "@t3-connector/test-support/journal-helpers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ActiveSegmentBytes } from "../../src/journal/active-bytes.js";
import { sealRecord } from "../../src/journal/checksum.js";
import { ACTIVE_FILE, JOURNAL_DIRECTORY, openJournal } from "../../src/journal/index.js";
import { type ActiveDocument, newPreparingRecord } from "../../src/journal/records.js";

const decoder = new TextDecoder();

function documentWith(count: number): ActiveDocument {
  const records: ActiveDocument["records"] = {};
  for (let i = 0; i < count; i += 1) {
    const key = i.toString(16).padStart(64, "0");
    records[key] = sealRecord(newPreparingRecord(request(`op-${i}`), key, "f".repeat(64), 1_000 + i));
  }
  return {
    format: "t3-connector/journal-active",
    version: 2,
    generation: 7,
    manifestGeneration: 3,
    checksum: "e".repeat(64),
    records,
  };
}

describe("the active segment's bytes", () => {
  it("are exactly JSON.stringify of the document, before and after records change, leave and arrive", () => {
    const bytes = new ActiveSegmentBytes();
    const document = documentWith(5);
    expect(decoder.decode(bytes.of(document))).toBe(JSON.stringify(document));

    const changed = Object.values(document.records)[2];
    if (changed === undefined) throw new Error("no third record");
    changed.state = "uncertain";
    changed.derivedIds = { commandId: "cmd-2" };
    sealRecord(changed);
    const [leaving] = Object.keys(document.records);
    if (leaving !== undefined) delete document.records[leaving];
    const arriving = documentWith(7).records;
    const lastKey = Object.keys(arriving).at(-1);
    if (lastKey !== undefined) document.records[lastKey] = arriving[lastKey] as (typeof arriving)[string];
    document.generation = 8;
    expect(decoder.decode(bytes.of(document))).toBe(JSON.stringify(document));
    expect(JSON.parse(decoder.decode(bytes.of(document))).records[changed.key].derivedIds).toEqual({
      commandId: "cmd-2",
    });
  });

  it("hold an empty segment", () => {
    const document = documentWith(0);
    expect(decoder.decode(new ActiveSegmentBytes().of(document))).toBe(JSON.stringify(document));
  });
});

describe("the active segment on disk", () => {
  let temp: TempDir;
  beforeEach(async () => {
    temp = await makeTempDir();
  });
  afterEach(async () => {
    await temp.remove();
  });

  it("is plain JSON holding every record's latest state after a run of writes", async () => {
    const journal = await openJournal({ stateDir: temp.stateDir, clock: new ManualClock() });
    const reserved = await Promise.all(
      Array.from({ length: 10 }, (_, i) => journal.reserve(request(`op-${i}`, { input: { i } }))),
    );
    await Promise.all(
      reserved.map(({ record }, i) =>
        i % 2 === 0
          ? journal.markUncertain(record.key, { commandId: `cmd-${i}` })
          : journal.refuse(record.key, { code: "scope_denied", message: "no" }),
      ),
    );
    const expected = await journal.list();
    await journal.close();
    const text = await readFile(join(temp.stateDir, JOURNAL_DIRECTORY, ACTIVE_FILE), "utf8");
    expect(JSON.stringify(JSON.parse(text))).toBe(text);
    const onDisk = JSON.parse(text) as ActiveDocument;
    for (const record of expected) {
      expect(onDisk.records[record.key]).toMatchObject({
        state: record.state,
        derivedIds: record.derivedIds,
      });
    }
    expect(Object.keys(onDisk.records)).toHaveLength(10);
  });
});
