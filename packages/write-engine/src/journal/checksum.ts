import { canonicalJson, sha256Hex } from "@t3-connector/core";
import type { JournalRecord } from "./types.js";

/**
 * The checksum of one record: SHA-256 of the canonical JSON of every field but `checksum`. Canonical
 * (sorted keys) because a record's key order changes between memory and a parsed file. It catches a
 * byte changed inside a record, and a `completed` record edited back to `preparing`, which would
 * otherwise load as an operation never sent.
 */
export function recordChecksum(record: JournalRecord): string {
  const { checksum: _ignored, ...fields } = record;
  return sha256Hex(canonicalJson(fields));
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
