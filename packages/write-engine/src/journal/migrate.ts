import { join } from "node:path";
import { sha256Hex } from "@t3-connector/core";
import type { JournalFs } from "@t3-connector/core/durable";
import { writeFileDurably } from "@t3-connector/core/durable";
import { activeChecksum, sealRecord } from "./checksum.js";
import { ACTIVE_FILE, JOURNAL_DIRECTORY, type JournalInspection } from "./inspect.js";
import {
  emptyManifest,
  type Manifest,
  type Marker,
  newJournalId,
  newMarker,
  writeManifest,
  writeMarker,
} from "./manifest.js";
import { ACTIVE_FORMAT, type ActiveDocument, SEGMENT_FORMAT, type SegmentDocument } from "./records.js";
import { manifestEntry, segmentFileName } from "./segments.js";
import type { JournalRecord } from "./types.js";

/**
 * A new journal: the marker first (`creating`), then the manifest and an empty active segment,
 * then the marker again (`created`). A crash before the end leaves `creating` and nothing
 * journaled, which the next open finishes; after it, an empty journal directory is damage.
 */
export async function createJournalFiles(
  fs: JournalFs,
  stateDir: string,
  now: number,
  marker: Marker | null,
): Promise<void> {
  const journalId = marker?.journalId ?? newJournalId();
  const directory = join(stateDir, JOURNAL_DIRECTORY);
  await writeMarker(fs, stateDir, newMarker(journalId, now, "creating"));
  const manifestGeneration = await writeManifest(fs, directory, emptyManifest(journalId, now));
  const generations = { generation: 1, manifestGeneration };
  await writeActive(fs, directory, {}, generations);
  await writeMarker(
    fs,
    stateDir,
    newMarker(journalId, marker?.createdAt ?? now, "created", {
      activeGeneration: generations.generation,
      manifestGeneration,
    }),
  );
}

/**
 * Migrate a journal of the previous format (version 1: no checksums, no manifest, no marker) in
 * place, on the first open by this version:
 * 1. marker `migrating` (a crash from here on resumes the migration, accepting files of either version);
 * 2. each sealed segment rewritten as version 2 with record checksums (durably, temp + rename);
 * 3. the active segment rewritten as version 2 with its checksums;
 * 4. the manifest listing every segment (bytes' SHA-256, keys);
 * 5. marker `created`.
 * Record content is unchanged; a record is never dropped. The previous version's integrity was
 * unknowable, so what it held is taken as it is (a segment lost before the migration cannot be noticed).
 */
export async function migrateLegacyJournal(
  fs: JournalFs,
  stateDir: string,
  now: number,
  legacy: Extract<JournalInspection, { kind: "legacy" }>,
): Promise<{ records: number; segments: number }> {
  const journalId = legacy.marker?.journalId ?? newJournalId();
  const directory = join(stateDir, JOURNAL_DIRECTORY);
  await writeMarker(fs, stateDir, newMarker(journalId, now, "migrating"));
  const manifest: Manifest = emptyManifest(journalId, now);
  let records = 0;
  for (const segment of legacy.segments) {
    const document: SegmentDocument = {
      format: SEGMENT_FORMAT,
      version: 2,
      id: segment.id,
      sealedAt: segment.sealedAt,
      records: segment.records.map((record) => sealRecord({ ...record })),
    };
    const text = JSON.stringify(document);
    await writeFileDurably(fs, join(directory, segmentFileName(segment.id)), text);
    manifest.segments.push(manifestEntry(document, sha256Hex(text)));
    manifest.nextSegmentId = Math.max(manifest.nextSegmentId, segment.id + 1);
    records += document.records.length;
  }
  const active: Record<string, JournalRecord> = {};
  for (const [key, record] of Object.entries(legacy.activeRecords)) active[key] = sealRecord({ ...record });
  await writeActive(fs, directory, active, { generation: 1, manifestGeneration: 0 });
  records += Object.keys(active).length;
  manifest.activeGeneration = 1;
  const manifestGeneration = await writeManifest(fs, directory, manifest);
  await writeMarker(
    fs,
    stateDir,
    newMarker(journalId, now, "created", { activeGeneration: 1, manifestGeneration }),
  );
  return { records, segments: legacy.segments.length };
}

/** Write the active segment outside a running journal (creation, migration, recovery). */
export async function writeActive(
  fs: JournalFs,
  directory: string,
  records: Record<string, JournalRecord>,
  generations: { generation: number; manifestGeneration: number },
): Promise<void> {
  const document: ActiveDocument = {
    format: ACTIVE_FORMAT,
    version: 2,
    ...generations,
    checksum: activeChecksum(records, generations),
    records,
  };
  await writeFileDurably(fs, join(directory, ACTIVE_FILE), JSON.stringify(document));
}
