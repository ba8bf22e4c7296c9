import { request } from "@t3-connector/test-support/journal-helpers";
import { describe, expect, it } from "vitest";
import { ActiveChecksum } from "../../src/journal/active-checksum.js";
import { activeChecksum, sealRecord } from "../../src/journal/checksum.js";
import { newPreparingRecord } from "../../src/journal/records.js";
import type { JournalRecord } from "../../src/journal/types.js";

function recordNumbered(n: number): JournalRecord {
  const key = ((n * 2654435761) % 2 ** 32).toString(16).padStart(64, "0");
  return sealRecord(newPreparingRecord(request(`op-${n}`), key, "f".repeat(64), 1_000 + n));
}

function change(record: JournalRecord | undefined): void {
  if (record === undefined) return;
  record.updatedAt += 1;
  record.derivedIds = { commandId: `cmd-${record.updatedAt}` };
  sealRecord(record);
}

describe("the active segment's checksum, kept between writes", () => {
  it("equals activeChecksum after every step of a busy journal, with and without generations", () => {
    const records: Record<string, JournalRecord> = {};
    const kept = new ActiveChecksum();
    const generations = { generation: 1, manifestGeneration: 1 };
    const check = (step: string) => {
      expect(kept.of(records, generations), step).toBe(activeChecksum(records, generations));
      expect(kept.of(records, {}), `${step}, no generations`).toBe(activeChecksum(records));
    };
    check("empty");
    let next = 0;
    const add = () => {
      const record = recordNumbered(next++);
      records[record.key] = record;
      return record;
    };
    for (let i = 0; i < 30; i++) add();
    check("thirty arrivals");
    for (let round = 0; round < 40; round++) {
      add();
      change(Object.values(records).at(-1));
      change(Object.values(records).at(-3));
      generations.generation += 1;
      if (round % 5 === 0) generations.manifestGeneration += 1;
      check(`round ${round}: one arrival, two changes`);
      if (round % 10 === 9) {
        for (const key of Object.keys(records).slice(0, 8)) delete records[key];
        check(`round ${round}: a seal of the eight oldest`);
      }
      if (round % 7 === 3) {
        const middle = Object.keys(records)[5];
        if (middle !== undefined) delete records[middle];
        add();
        check(`round ${round}: one left from the middle as another arrived`);
      }
    }
    const unsealed = { ...recordNumbered(next++), checksum: undefined };
    records[unsealed.key] = unsealed;
    check("an unsealed record among sealed ones");
    sealRecord(unsealed);
    check("the record sealed");
    for (const key of Object.keys(records)) delete records[key];
    check("empty again");
    add();
    check("one again");
  });

  it("equals activeChecksum for keys that are not 64 hex digits", () => {
    const record = recordNumbered(1);
    const records: Record<string, JournalRecord> = { "not-a-key": record, [record.key]: recordNumbered(2) };
    expect(new ActiveChecksum().of(records, { generation: 3 })).toBe(
      activeChecksum(records, { generation: 3 }),
    );
  });
});
