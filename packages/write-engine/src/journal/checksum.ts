import { canonicalJson, sha256Hex } from "@t3-connector/core";
import type { JournalRecord } from "./types.js";

/**
 * The checksum of one record: SHA-256 of the canonical JSON of every field but `checksum`. Canonical
 * (sorted keys) because a record's key order changes between memory and a parsed file. It catches a
 * byte changed inside a record, and a `completed` record edited back to `preparing`, which would
 * otherwise load as an operation never sent.
 */
export function recordChecksum(record: JournalRecord): string {
  return sha256Hex(recordCanonicalJson(record));
}

/** A record's fields but `checksum`, in canonical (sorted) order. */
const SORTED_FIELDS = [
  "action",
  "command",
  "createdAt",
  "derivedIds",
  "destination",
  "environmentId",
  "error",
  "inputHash",
  "key",
  "operationId",
  "receipt",
  "reconciledAt",
  "settledAt",
  "state",
  "updatedAt",
] as const satisfies readonly Exclude<keyof JournalRecord, "checksum">[];

/**
 * `canonicalJson` of the record without `checksum`, written field by field in the sorted order
 * above, each value through `canonicalJson` as before: the same text, without copying the record
 * to drop the field or sorting its keys again, three times per write. A record holding any other
 * own key (none is ever built; the strict schema refuses one on load) takes the general path.
 */
function recordCanonicalJson(record: JournalRecord): string {
  // The compiler stops here when a record gains a field the list above lacks (it would take the slow path).
  const everyFieldListed: [
    Exclude<keyof JournalRecord, (typeof SORTED_FIELDS)[number] | "checksum">,
  ] extends [never]
    ? true
    : never = true;
  void everyFieldListed;
  const fields = record as unknown as Record<string, unknown>;
  let known = Object.hasOwn(fields, "checksum") ? 1 : 0;
  for (const field of SORTED_FIELDS) if (Object.hasOwn(fields, field)) known += 1;
  if (known !== Object.keys(fields).length) {
    const { checksum: _ignored, ...rest } = record;
    return canonicalJson(rest);
  }
  let text = "{";
  for (const field of SORTED_FIELDS) {
    const value = fields[field];
    if (value === undefined) continue;
    if (text.length > 1) text += ",";
    text += `"${field}":${typeof value === "string" ? JSON.stringify(value) : canonicalJson(value)}`;
  }
  return `${text}}`;
}

/** Stamp `record` with its checksum after every change (the only writer of the field). */
export function sealRecord(record: JournalRecord): JournalRecord {
  record.checksum = recordChecksum(record);
  return record;
}

export function recordIntact(record: JournalRecord): boolean {
  return record.checksum !== undefined && record.checksum === recordChecksum(record);
}

/** The active segment's generations (ADR 0006 §14); absent in files written before they existed. */
export interface ActiveGenerations {
  generation?: number | undefined;
  manifestGeneration?: number | undefined;
}

/**
 * The active segment's own checksum: over its sorted `(key, record checksum)` pairs and, when the
 * file carries them, its generations. A record removed, added or swapped changes it; a byte changed
 * inside one record changes only that record's checksum, so the damage can be named (and that one
 * key refused) rather than lost whole. A file from before generations keeps the old formula.
 */
export function activeChecksum(
  records: Record<string, JournalRecord>,
  generations: ActiveGenerations = {},
): string {
  const pairs = Object.keys(records)
    .sort()
    .map((key) => `${key}:${records[key]?.checksum ?? ""}`);
  if (generations.generation !== undefined) {
    pairs.push(`generation:${generations.generation}`, `manifest:${generations.manifestGeneration ?? 0}`);
  }
  return sha256Hex(pairs.join("\n"));
}
