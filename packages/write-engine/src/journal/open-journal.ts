import { join, resolve } from "node:path";
import { type Clock, ConnectorError, systemClock } from "@t3-connector/core";
import {
  acquireJournalLock,
  DurableJsonFile,
  ensurePrivateDirectory,
  type JournalFs,
  type JournalLock,
  nodeJournalFs,
  syncDirectory,
  TEMP_FILE_PATTERN,
} from "@t3-connector/core/durable";
import { Low } from "lowdb";
import { ActiveSegmentBytes } from "./active-bytes.js";
import { activeChecksum } from "./checksum.js";
import { journalDamaged } from "./damage.js";
import { Generations } from "./generations.js";
import { ACTIVE_FILE, inspectJournal, JOURNAL_DIRECTORY } from "./inspect.js";
import { type IndexEntry, Journal, type JournalPolicy } from "./journal.js";
import { LostRegister } from "./lost.js";
import { type Manifest, type Marker, removeMarkerTemps } from "./manifest.js";
import { createJournalFiles, migrateLegacyJournal } from "./migrate.js";
import { type ActiveDocument, parseActiveDocument, type SegmentDocument } from "./records.js";
import { describeSegment, type SegmentInfo, SegmentStore } from "./segments.js";
import type { JournalRecord } from "./types.js";
import type { JournalWitness } from "./witness.js";

/** Published retention: settled records are kept at least 7 days after they settle. */
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * Every durable mutation rewrites the active segment, so its size is the write's cost: it holds
 * the open records plus at most ~120 settled ones (~70 KB). Measured with bench/lib/journal-cycle
 * at 10,000 records on a busy 2-core machine: 250/50 gave a write cycle p99 of 42–188 ms, 100/20
 * 12–44 ms (ADR 0006 §13). More, smaller segments cost only a longer manifest.
 */
export const DEFAULT_SEGMENT_RECORDS = 100;
export const DEFAULT_RECENT_RECORDS = 20;

/**
 * How long a `completed` the caller did not wait for may wait for the journal's next write before
 * it is written on its own (ADR 0066): longer than a client's turn between two writes of a burst,
 * short against anything a person or a reconcile would notice. A reader of the key never waits
 * for it: reading starts the write.
 */
export const DEFAULT_COMPLETED_WRITE_DELAY_MS = 25;

export interface JournalOptions {
  /** The gate's state directory (0700, never a symlink). The journal lives in `<stateDir>/journal/`. */
  stateDir: string;
  clock?: Clock;
  fs?: JournalFs;
  retentionMs?: number;
  segmentRecords?: number;
  recentRecords?: number;
  /** Default `DEFAULT_COMPLETED_WRITE_DELAY_MS`. */
  completedWriteDelayMs?: number;
  /** Called once when a write fails and the journal becomes unavailable (close every lease). */
  onUnavailable?: (error: ConnectorError) => void;
  /** Told once when a journal of the previous format was migrated by this open. */
  onMigrated?: (summary: { records: number; segments: number }) => void;
  /**
   * What files outside the journal say about it (the gate's audit log, ADR 0006 §14–§15): its
   * findings stop the open like the journal's own, and the generation it recorded must not be
   * ahead of the journal's. Without one, only the journal's own files are compared.
   */
  witness?: JournalWitness;
}

/**
 * Open the journal of a state directory: check the directories, take the lock (refusing a second
 * journal or gate), remove temp files a crash left behind, then check every file against the
 * manifest and every record against its checksum. Any damage refuses the open with
 * `journal_damaged` (nothing is changed); a state directory that never had a journal gets a new
 * one; a journal of the previous format is migrated first. Then the retention applies.
 */
export async function openJournal(options: JournalOptions): Promise<Journal> {
  const policy = readPolicy(options);
  const { fs, clock, stateDir, directory, lock } = await lockJournalDirectory(options);
  try {
    let inspection = await inspectJournal(fs, stateDir, options.witness);
    if (inspection.kind === "fresh") {
      await createJournalFiles(fs, stateDir, Math.floor(clock.now()), inspection.marker);
      inspection = await inspectJournal(fs, stateDir, options.witness);
    } else if (inspection.kind === "legacy") {
      const summary = await migrateLegacyJournal(fs, stateDir, Math.floor(clock.now()), inspection);
      options.onMigrated?.(summary);
      inspection = await inspectJournal(fs, stateDir, options.witness);
    }
    if (inspection.kind === "journal" && inspection.findings.length > 0) {
      throw journalDamaged(stateDir, inspection.findings);
    }
    if (inspection.kind !== "journal" || inspection.manifest === null || inspection.marker === null) {
      throw new ConnectorError("internal", "the journal was created or migrated but does not read back");
    }
    const manifest: Manifest = inspection.manifest;
    if (inspection.adopted.length > 0) {
      // A seal wrote its segment and stopped before the manifest: finish it.
      const adopted = new Set(inspection.adopted);
      manifest.segments.push(...inspection.entries.filter((entry) => adopted.has(entry.id)));
      manifest.nextSegmentId = Math.max(manifest.nextSegmentId, ...inspection.adopted.map((id) => id + 1));
    }
    const journal = await assemble({
      fs,
      clock,
      policy,
      lock,
      directory,
      manifest,
      marker: inspection.marker,
      generations: inspection.generations,
      segments: inspection.segments,
      activeRecords: inspection.activeRecords,
      leftovers: inspection.leftovers,
      rewriteManifest: inspection.adopted.length > 0,
      onUnavailable: options.onUnavailable,
    });
    await journal.prune();
    return journal;
  } catch (error) {
    await lock.release().catch(() => undefined);
    throw error;
  }
}

interface Assembly {
  fs: JournalFs;
  clock: Clock;
  policy: JournalPolicy;
  lock: JournalLock;
  directory: string;
  manifest: Manifest;
  marker: Marker;
  generations: { active: number; manifest: number };
  segments: SegmentDocument[];
  activeRecords: Record<string, JournalRecord>;
  leftovers: number[];
  rewriteManifest: boolean;
  onUnavailable: ((error: ConnectorError) => void) | undefined;
}

async function assemble(parts: Assembly): Promise<Journal> {
  const { fs, directory, manifest } = parts;
  const segments = new SegmentStore(fs, directory);
  const index = new Map<string, IndexEntry>();
  const segmentInfo = new Map<number, SegmentInfo>();
  const entries = new Map(manifest.segments.map((entry) => [entry.id, entry]));
  for (const document of parts.segments) {
    const entry = entries.get(document.id);
    if (entry === undefined) continue;
    segments.expect(entry.id, entry.sha256);
    segmentInfo.set(document.id, describeSegment(entry));
    for (const record of document.records) {
      index.set(record.key, { inputHash: record.inputHash, state: record.state, segment: document.id });
    }
  }
  const generations = new Generations(parts.generations.active, parts.generations.manifest);
  const activeBytes = new ActiveSegmentBytes();
  const activeFile = new DurableJsonFile<ActiveDocument>(
    fs,
    join(directory, ACTIVE_FILE),
    (value) => ({ ...emptyActive(), records: parseActiveDocument(value).records }),
    (document) => serializeActive(document, generations, activeBytes),
  );
  const db = new Low<ActiveDocument>(activeFile, emptyActive());
  db.data.records = { ...parts.activeRecords };
  let rewriteActive = false;
  for (const [key, record] of Object.entries(db.data.records)) {
    // Sealed, then killed before the active segment was rewritten: the sealed copy is the same
    // settled record, and the next write drops the active one.
    if (index.has(key)) {
      delete db.data.records[key];
      rewriteActive = true;
    } else index.set(key, { inputHash: record.inputHash, state: record.state, segment: null });
  }
  const journal = new Journal({
    db,
    activeFile,
    segments,
    lock: parts.lock,
    clock: parts.clock,
    policy: parts.policy,
    index,
    segmentInfo,
    onUnavailable: parts.onUnavailable,
    fs,
    directory,
    manifest,
    marker: parts.marker,
    generations,
    lost: new LostRegister(manifest),
  });
  await journal.finishOpen({
    rewriteManifest: parts.rewriteManifest,
    rewriteActive,
    leftovers: parts.leftovers,
  });
  return journal;
}

export function emptyActive(): ActiveDocument {
  return {
    format: "t3-connector/journal-active",
    version: 2,
    generation: 0,
    manifestGeneration: 0,
    checksum: "",
    records: {},
  };
}

/**
 * The active segment's bytes as its next generation (it runs when a write starts: the snapshot),
 * with the manifest's durable generation and the checksum of exactly what it holds.
 */
function serializeActive(
  document: ActiveDocument,
  generations: Generations,
  bytes: ActiveSegmentBytes,
): Uint8Array {
  document.generation = generations.nextActive();
  document.manifestGeneration = generations.manifest;
  document.checksum = activeChecksum(document.records, document);
  return bytes.of(document);
}

function readPolicy(options: JournalOptions): JournalPolicy {
  const policy: JournalPolicy = {
    retentionMs: options.retentionMs ?? DEFAULT_RETENTION_MS,
    segmentRecords: options.segmentRecords ?? DEFAULT_SEGMENT_RECORDS,
    recentRecords: options.recentRecords ?? DEFAULT_RECENT_RECORDS,
    completedWriteDelayMs: options.completedWriteDelayMs ?? DEFAULT_COMPLETED_WRITE_DELAY_MS,
  };
  if (
    !(policy.retentionMs >= 0) ||
    !Number.isSafeInteger(policy.segmentRecords) ||
    policy.segmentRecords < 1
  ) {
    throw new ConnectorError(
      "invalid_input",
      "retentionMs must be ≥ 0 and segmentRecords a positive integer",
    );
  }
  if (!(policy.completedWriteDelayMs >= 0)) {
    throw new ConnectorError("invalid_input", "completedWriteDelayMs must be ≥ 0");
  }
  if (!Number.isSafeInteger(policy.recentRecords) || policy.recentRecords < 0) {
    throw new ConnectorError("invalid_input", "recentRecords must be a non-negative integer");
  }
  return policy;
}

/** A state directory's journal, held under its lock and cleared of what a crash left. */
export interface LockedJournalDirectory {
  readonly fs: JournalFs;
  readonly clock: Clock;
  /** Absolute. */
  readonly stateDir: string;
  readonly directory: string;
  readonly lock: JournalLock;
}

/**
 * Takes the journal's lock for a state directory (created private when missing), makes sure the
 * journal directory exists and removes the temp files an interrupted write left. A failure after
 * the lock was taken releases it; on success the caller releases it.
 */
export async function lockJournalDirectory(options: {
  stateDir: string;
  fs?: JournalFs;
  clock?: Clock;
}): Promise<LockedJournalDirectory> {
  const fs = options.fs ?? nodeJournalFs;
  const clock = options.clock ?? systemClock;
  const stateDir = resolve(options.stateDir);
  await ensurePrivateDirectory(fs, stateDir, "state directory");
  const lock = await acquireJournalLock(fs, stateDir, clock);
  try {
    const directory = join(stateDir, JOURNAL_DIRECTORY);
    await ensurePrivateDirectory(fs, directory, "journal directory");
    await removeLeftoverTemps(fs, directory);
    await removeMarkerTemps(fs, stateDir);
    return { fs, clock, stateDir, directory, lock };
  } catch (error) {
    await lock.release().catch(() => undefined);
    throw error;
  }
}

/** We hold the lock, so any temp file here is a write that a crash interrupted before its rename. */
export async function removeLeftoverTemps(fs: JournalFs, directory: string): Promise<void> {
  let removed = 0;
  for (const name of await fs.readdir(directory)) {
    if (!TEMP_FILE_PATTERN.test(name)) continue;
    await fs.unlink(join(directory, name));
    removed += 1;
  }
  if (removed > 0) await syncDirectory(fs, directory);
}
