import { request } from "@t3-connector/test-support/journal-helpers";
import { describe, expect, it } from "vitest";
import { ActiveSegmentBytes } from "../../src/journal/active-bytes.js";
import { sealRecord } from "../../src/journal/checksum.js";
import { type ActiveDocument, newPreparingRecord } from "../../src/journal/records.js";
import type { JournalRecord } from "../../src/journal/types.js";

const decoder = new TextDecoder();

/** A record whose key sorts anywhere among the others (keys are hex, as `journalKey` makes them). */
function recordNumbered(n: number): JournalRecord {
  const key = ((n * 2654435761) % 2 ** 32).toString(16).padStart(64, "0");
  return sealRecord(newPreparingRecord(request(`op-${n}`), key, "f".repeat(64), 1_000 + n));
}

/**
 * Steps a busy journal takes between two writes: reservations arrive at the end, the newest records
 * change, a seal removes a batch of the oldest, a prune removes one from the middle.
 */
function* journalSteps(document: ActiveDocument): Generator<string> {
  let next = 0;
  const add = () => {
    const record = recordNumbered(next++);
    document.records[record.key] = record;
  };
  const change = (record: JournalRecord | undefined) => {
    if (record === undefined) return;
    record.state = "uncertain";
    record.updatedAt += 1;
    record.derivedIds = { commandId: `cmd-${record.updatedAt}` };
    sealRecord(record);
  };
  for (let i = 0; i < 30; i++) add();
  yield "thirty reservations";
  for (let round = 0; round < 40; round++) {
    add();
    change(Object.values(document.records).at(-1));
    change(Object.values(document.records).at(-3));
    document.generation += 1;
    yield `round ${round}: one arrival, two changes at the end`;
    if (round % 10 === 9) {
      for (const key of Object.keys(document.records).slice(0, 8)) delete document.records[key];
      yield `round ${round}: a seal of the eight oldest`;
    }
    if (round % 7 === 3) {
      const middle = Object.keys(document.records)[5];
      if (middle !== undefined) delete document.records[middle];
      change(Object.values(document.records)[2]);
      yield `round ${round}: one pruned from the middle, one changed near the start`;
    }
  }
  const unsealed = { ...recordNumbered(next++), checksum: undefined };
  document.records[unsealed.key] = unsealed;
  add();
  yield "an unsealed record among sealed ones";
  unsealed.state = "refused";
  yield "the unsealed record changed";
  sealRecord(unsealed);
  yield "the record sealed";
  for (const key of Object.keys(document.records)) delete document.records[key];
  yield "empty";
  add();
  yield "one again";
}

describe("the active segment's bytes, kept between writes", () => {
  it("equal JSON.stringify of the document after every step of a busy journal", () => {
    const document: ActiveDocument = {
      format: "t3-connector/journal-active",
      version: 2,
      generation: 1,
      manifestGeneration: 1,
      checksum: "",
      records: {},
    };
    const bytes = new ActiveSegmentBytes();
    let steps = 0;
    for (const step of journalSteps(document)) {
      document.checksum = steps.toString(16).padStart(64, "0");
      expect(decoder.decode(bytes.of(document)), step).toBe(JSON.stringify(document));
      steps += 1;
    }
    expect(steps).toBeGreaterThan(40);
  });
});
