import { request } from "@t3-connector/test-support/journal-helpers";
import { describe, expect, it } from "vitest";
import { recordChecksum } from "../../src/journal/checksum.js";
import { canonicalJson, sha256Hex } from "../../src/journal/index.js";
import { newPreparingRecord } from "../../src/journal/records.js";
import type { JournalRecord } from "../../src/journal/types.js";

/** The published formula, written out: SHA-256 of the canonical JSON of every field but `checksum`. */
function byDefinition(record: JournalRecord): string {
  const { checksum: _ignored, ...fields } = record;
  return sha256Hex(canonicalJson(fields));
}

const preparing = (): JournalRecord =>
  newPreparingRecord(request("op-é\u2028"), "a".repeat(64), "b".repeat(64), 1_000);

describe("a record's checksum", () => {
  it.each<[string, () => JournalRecord]>([
    ["a preparing record", preparing],
    ["a sealed one (its checksum left out)", () => ({ ...preparing(), checksum: "c".repeat(64) })],
    [
      "an uncertain one with its ids and command, keys in any order",
      () => ({
        ...preparing(),
        state: "uncertain",
        derivedIds: { z: "1", a: "2", "hint.threads": '["t"]' },
        command: { kind: "dispatch", body: { z: [1, { b: 2, a: null }], a: "x" } },
      }),
    ],
    [
      "a completed one whose command was removed",
      () => ({
        ...preparing(),
        state: "completed",
        settledAt: 5,
        receipt: { sequence: 3, ok: true, n: null },
      }),
    ],
    ["a refused one", () => ({ ...preparing(), state: "refused", error: { code: "x", message: 'y"z' } })],
    ["one with a field no record has", () => ({ ...preparing(), extra: 1 }) as JournalRecord],
  ])("is the SHA-256 of the canonical JSON of every other field: %s", (_label, make) => {
    expect(recordChecksum(make())).toBe(byDefinition(make()));
  });

  it("refuses what canonical JSON refuses", () => {
    expect(() => recordChecksum({ ...preparing(), createdAt: Number.NaN })).toThrow(
      expect.objectContaining({ code: "invalid_input" }),
    );
  });
});
