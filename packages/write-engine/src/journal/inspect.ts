import { join } from "node:path";
import { ConnectorError, isConnectorError, sha256Hex } from "@t3-connector/core";
import type { JournalFs } from "@t3-connector/core/durable";
import { readPrivateText } from "@t3-connector/core/durable";
import { activeChecksum, recordIntact } from "./checksum.js";
import type { FindingProblem, JournalFinding, LostRange } from "./findings.js";
import {
  MANIFEST_FILE,
  MARKER_FILE,
  type Manifest,
  type ManifestSegment,
  type Marker,
  readManifest,
  readMarker,
} from "./manifest.js";
import { parseActiveDocument, parseSegmentDocument, type SegmentDocument } from "./records.js";
import { listSegmentIds, manifestEntry, segmentFileName } from "./segments.js";
import type { JournalRecord } from "./types.js";
import { type JournalWitness, NO_WITNESS, type WitnessReport } from "./witness.js";

export const JOURNAL_DIRECTORY = "journal";
export const ACTIVE_FILE = "active.json";

/** Journal files as they are on disk, checked. */
export interface JournalContents {
  marker: Marker | null;
  manifest: Manifest | null;
  /** Segments whose bytes match the manifest (or, without a manifest, whose records all verify). */
  segments: SegmentDocument[];
  /** Their manifest entries (rebuilt from the files when the manifest is not usable). */
  entries: ManifestSegment[];
  /** Active records whose checksum verifies (every record when the file is intact). */
  activeRecords: Record<string, JournalRecord>;
  /** The generations of the active segment and manifest as read (0 when absent or unreadable). */
  generations: { active: number; manifest: number };
  /** The highest generation any file recorded of each (what a recovery must write past). */
  highest: { active: number; manifest: number };
  /** The active segment is an older copy: its `preparing` records may in truth have been sent. */
  activeRolledBack: boolean;
  /** What the witness (the audit log) said. */
  witness: WitnessReport;
  /** Unlisted segments older than the manifest's next id: a prune removed them from the manifest first. */
  leftovers: number[];
  /** Unlisted, intact segments at or past the next id: a seal wrote them and stopped before the manifest. */
  adopted: number[];
  /** Damaged files present on disk (recovery moves them aside). */
  damagedFiles: string[];
  findings: JournalFinding[];
}

export type JournalInspection =
  | { kind: "fresh"; marker: Marker | null }
  | {
      kind: "legacy";
      marker: Marker | null;
      segments: SegmentDocument[];
      activeRecords: Record<string, JournalRecord>;
    }
  | ({ kind: "journal" } & JournalContents);

const NOTHING: LostRange = {
  records: 0,
  keys: [],
  operationIds: [],
  firstOperationId: null,
  lastOperationId: null,
  createdFrom: null,
  settledTo: null,
  known: true,
};
/** A loss that cannot be measured: which records, keys and operations went is not known. */
export const UNKNOWN_LOST_RANGE: LostRange = { ...NOTHING, records: null, known: false };

type Raw = { status: "missing" } | { status: "text"; text: string };

async function readRaw(fs: JournalFs, path: string): Promise<Raw> {
  const text = await readPrivateText(fs, path);
  return text === null ? { status: "missing" } : { status: "text", text };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `version` of a parsed journal document, or null when it is not one. */
function versionOf(value: unknown): number | null {
  const version = (value as { version?: unknown } | null)?.version;
  return typeof version === "number" ? version : null;
}

/**
 * Read every journal file of a state directory and say what it is: never had a journal, a journal
 * of the previous format (no manifest, no checksums), or a journal with its findings (empty when
 * intact). Reads only; the caller holds the lock.
 */
export async function inspectJournal(
  fs: JournalFs,
  stateDir: string,
  witness: JournalWitness = NO_WITNESS,
): Promise<JournalInspection> {
  const directory = join(stateDir, JOURNAL_DIRECTORY);
  const markerRead = await readMarker(fs, stateDir);
  const marker = markerRead.status === "ok" ? markerRead.value : null;
  const witnessed = await witness.check(marker?.audit ?? null);
  const names = await fs.readdir(directory).catch(() => [] as string[]);
  const segmentIds = await listSegmentIds(fs, directory).catch(() => [] as number[]);
  const hasManifest = names.includes(MANIFEST_FILE);
  const hasActive = names.includes(ACTIVE_FILE);
  const active = hasActive ? await readRaw(fs, join(directory, ACTIVE_FILE)) : ({ status: "missing" } as Raw);
  const activeValue = active.status === "text" ? parseJson(active.text) : undefined;

  const nothingOnDisk = !hasManifest && !hasActive && segmentIds.length === 0;
  if (markerRead.status === "missing" && nothingOnDisk) {
    // Nothing journaled and nothing else here either: a first start. But an audit log with lines
    // or enrolled passkeys mean a gate ran here, and a gate always had a journal: it was deleted.
    if (witnessed.evidence.length === 0 && witnessed.findings.length === 0)
      return { kind: "fresh", marker: null };
    return { kind: "journal", ...erased(witnessed) };
  }
  // Creation writes the marker as `creating` first and `created` last: in between, nothing was
  // ever journaled, so finishing the creation loses nothing.
  if (marker?.state === "creating" && segmentIds.length === 0) {
    const records = (activeValue as { records?: object } | undefined)?.records;
    if (records === undefined || Object.keys(records).length === 0) return { kind: "fresh", marker };
  }
  if (marker?.state === "migrating" || (markerRead.status === "missing" && !hasManifest)) {
    const legacy = await readLegacy(fs, directory, segmentIds, activeValue, active.status === "text", marker);
    if (legacy !== null) return legacy;
  }
  return {
    kind: "journal",
    ...(await inspectCurrent(fs, stateDir, markerRead, names, segmentIds, active, witnessed)),
  };
}

/** The journal and its marker are gone, but the witness shows a journal existed. */
function erased(witness: WitnessReport): JournalContents {
  const findings: JournalFinding[] = [];
  if (witness.evidence.length > 0) {
    findings.push({
      file: `${JOURNAL_DIRECTORY}/`,
      problem: "missing",
      detail:
        `the journal and its identity file (${MARKER_FILE}) are gone, but ${witness.evidence.join(" and ")} ` +
        "show a gate ran here with a journal: it was deleted, and every write it held cannot be named",
      lost: UNKNOWN_LOST_RANGE,
    });
  }
  findings.push(...witness.findings);
  const highest = { active: witness.generation?.value ?? 0, manifest: 0 };
  return {
    marker: null,
    manifest: null,
    segments: [],
    entries: [],
    activeRecords: {},
    leftovers: [],
    adopted: [],
    damagedFiles: [...witness.damagedFiles],
    findings,
    generations: { active: 0, manifest: 0 },
    highest,
    activeRolledBack: false,
    witness,
  };
}

/** A journal of the previous format: every file is version 1 (or, mid-migration, 1 or 2). */
async function readLegacy(
  fs: JournalFs,
  directory: string,
  segmentIds: number[],
  activeValue: unknown,
  activePresent: boolean,
  marker: Marker | null,
): Promise<JournalInspection | null> {
  const migrating = marker?.state === "migrating";
  const accepted = (value: unknown) => versionOf(value) === 1 || (migrating && versionOf(value) === 2);
  if (activePresent && !accepted(activeValue)) return null;
  const segments: SegmentDocument[] = [];
  for (const id of segmentIds) {
    const name = segmentFileName(id);
    const raw = await readRaw(fs, join(directory, name));
    const value = raw.status === "text" ? parseJson(raw.text) : undefined;
    if (!accepted(value)) return null;
    segments.push(parseLegacy(() => parseSegmentDocument(value, name), name));
  }
  const activeRecords = activePresent
    ? parseLegacy(() => parseActiveDocument(activeValue).records, ACTIVE_FILE)
    : {};
  return { kind: "legacy", marker, segments, activeRecords };
}

function parseLegacy<T>(parse: () => T, name: string): T {
  try {
    return parse();
  } catch (error) {
    if (!isConnectorError(error)) throw error;
    throw new ConnectorError(
      "journal_damaged",
      `the journal (previous format) cannot be migrated: ${JOURNAL_DIRECTORY}/${name} does not have the journal's format`,
      { details: { files: [`${JOURNAL_DIRECTORY}/${name}`] } },
    );
  }
}

/** What the checks found wrong so far: each step adds its findings and the damaged files on disk. */
interface Damage {
  readonly findings: JournalFinding[];
  readonly damagedFiles: string[];
}

const rel = (name: string) => `${JOURNAL_DIRECTORY}/${name}`;

async function inspectCurrent(
  fs: JournalFs,
  stateDir: string,
  markerRead: Awaited<ReturnType<typeof readMarker>>,
  names: string[],
  segmentIds: number[],
  active: Raw,
  witness: WitnessReport,
): Promise<JournalContents> {
  const directory = join(stateDir, JOURNAL_DIRECTORY);
  const damage: Damage = { findings: [], damagedFiles: [] };
  const marker = checkMarker(markerRead, damage);
  const manifest = await checkManifest(fs, directory, names, marker, damage);
  // Without a manifest nothing is adopted: a recovery lists what verifies, the open refuses.
  const sealed =
    manifest === null
      ? { ...(await readUnlistedSegments(fs, directory, segmentIds, damage)), adopted: [] }
      : await readListedSegments(fs, directory, manifest, segmentIds, damage);
  const activeRead = inspectActive(active, damage.findings, damage.damagedFiles, rel(ACTIVE_FILE));
  const rollback = checkGenerations(activeRead, manifest, marker, witness, damage);
  damage.findings.push(...witness.findings);
  damage.damagedFiles.push(...witness.damagedFiles);
  return {
    marker,
    manifest,
    ...sealed,
    activeRecords: activeRead.records,
    damagedFiles: damage.damagedFiles,
    findings: damage.findings,
    ...rollback,
    witness,
  };
}

/** The journal's identity file; a missing or damaged one is a finding (nothing is lost by it alone). */
function checkMarker(markerRead: Awaited<ReturnType<typeof readMarker>>, damage: Damage): Marker | null {
  if (markerRead.status === "ok") return markerRead.value;
  damage.findings.push({
    file: MARKER_FILE,
    problem: markerRead.status === "missing" ? "missing" : "altered",
    detail:
      markerRead.status === "missing"
        ? "the journal's identity file is missing"
        : `the journal's identity file is damaged (${markerRead.reason})`,
    lost: NOTHING,
  });
  if (markerRead.status === "damaged") damage.damagedFiles.push(MARKER_FILE);
  return null;
}

/** The manifest, or null when it is missing, damaged or another journal's (each a finding). */
async function checkManifest(
  fs: JournalFs,
  directory: string,
  names: readonly string[],
  marker: Marker | null,
  damage: Damage,
): Promise<Manifest | null> {
  const manifestRead = names.includes(MANIFEST_FILE)
    ? await readManifest(fs, directory)
    : ({ status: "missing" } as const);
  if (manifestRead.status !== "ok") {
    damage.findings.push({
      file: rel(MANIFEST_FILE),
      problem: manifestRead.status === "missing" ? "missing" : "altered",
      detail:
        (manifestRead.status === "missing"
          ? "the manifest is missing"
          : `the manifest is damaged (${manifestRead.reason})`) +
        ": the list of sealed segments is lost, so a missing segment cannot be noticed or named",
      lost: UNKNOWN_LOST_RANGE,
    });
    if (manifestRead.status === "damaged") damage.damagedFiles.push(rel(MANIFEST_FILE));
    return null;
  }
  const manifest = manifestRead.value;
  if (marker !== null && manifest.journalId !== marker.journalId) {
    damage.findings.push({
      file: rel(MANIFEST_FILE),
      problem: "foreign",
      detail: `the manifest belongs to another journal (${manifest.journalId}, expected ${marker.journalId})`,
      lost: UNKNOWN_LOST_RANGE,
    });
    return null;
  }
  return manifest;
}

/** The sealed segments that read back intact, with their entries and the ids left over or adopted. */
interface SealedRead {
  segments: SegmentDocument[];
  entries: ManifestSegment[];
  leftovers: number[];
  adopted: number[];
}

/** Every segment the manifest lists, byte for byte against its SHA-256; then the unlisted ones. */
async function readListedSegments(
  fs: JournalFs,
  directory: string,
  manifest: Manifest,
  segmentIds: readonly number[],
  damage: Damage,
): Promise<SealedRead> {
  const sealed: SealedRead = { segments: [], entries: [], leftovers: [], adopted: [] };
  for (const entry of manifest.segments) {
    const raw = await readRaw(fs, join(directory, entry.file));
    const lost = lostFromEntry(entry);
    if (raw.status === "missing") {
      const detail = describeLoss(`${entry.file} is missing`, lost);
      damage.findings.push({ file: rel(entry.file), problem: "missing", detail, lost });
      continue;
    }
    if (sha256Hex(raw.text) !== entry.sha256) {
      const problem = parseJson(raw.text) === undefined ? "truncated" : "altered";
      const what =
        problem === "truncated"
          ? "truncated (not complete JSON)"
          : "altered (its bytes do not match the manifest's SHA-256)";
      const detail = describeLoss(`${entry.file} is ${what}`, lost);
      damage.findings.push({ file: rel(entry.file), problem, detail, lost });
      damage.damagedFiles.push(rel(entry.file));
      continue;
    }
    sealed.segments.push(parseSegmentDocument(JSON.parse(raw.text), entry.file));
    sealed.entries.push(entry);
  }
  const listed = new Set(manifest.segments.map((entry) => entry.id));
  const unlisted = segmentIds.filter((id) => !listed.has(id));
  // Older than the next id: a prune removed it from the manifest first. Newer: a seal wrote it and
  // stopped before the manifest; adopted when it verifies record by record.
  sealed.leftovers.push(...unlisted.filter((id) => id < manifest.nextSegmentId));
  const newer = unlisted.filter((id) => id >= manifest.nextSegmentId);
  const verified = await readUnlistedSegments(fs, directory, newer, damage);
  sealed.segments.push(...verified.segments);
  sealed.entries.push(...verified.entries);
  sealed.adopted.push(...verified.adopted);
  return sealed;
}

/** Segments with no manifest entry to compare with: each must at least verify record by record. */
async function readUnlistedSegments(
  fs: JournalFs,
  directory: string,
  segmentIds: readonly number[],
  damage: Damage,
): Promise<SealedRead> {
  const sealed: SealedRead = { segments: [], entries: [], leftovers: [], adopted: [] };
  for (const id of segmentIds) {
    const checked = await readVerifiedSegment(fs, directory, id);
    if (checked.ok) {
      sealed.segments.push(checked.document);
      sealed.entries.push(checked.entry);
      sealed.adopted.push(id);
    } else {
      damage.findings.push({ ...checked.finding, file: rel(segmentFileName(id)) });
      damage.damagedFiles.push(rel(segmentFileName(id)));
    }
  }
  return sealed;
}

/**
 * The active segment and the manifest against every file that recorded their generation: a file
 * behind any of them is an older copy put back (rolled back), and what was written after it is lost.
 */
function checkGenerations(
  activeRead: ActiveRead,
  manifest: Manifest | null,
  marker: Marker | null,
  witness: WitnessReport,
  damage: Damage,
): Pick<JournalContents, "generations" | "highest" | "activeRolledBack"> {
  const generations = { active: activeRead.generation ?? 0, manifest: manifest?.generation ?? 0 };
  const activeWitnesses: Witnessed[] = [
    { value: marker?.activeGeneration, file: MARKER_FILE },
    { value: manifest?.activeGeneration, file: rel(MANIFEST_FILE) },
    { value: witness.generation?.value, file: witness.generation?.file ?? "" },
  ];
  const manifestWitnesses: Witnessed[] = [
    { value: marker?.manifestGeneration, file: MARKER_FILE },
    { value: activeRead.manifestGeneration, file: rel(ACTIVE_FILE) },
  ];
  const activeAhead = activeRead.generation === null ? null : aheadOf(activeRead.generation, activeWitnesses);
  if (activeAhead !== null) {
    damage.findings.push({
      file: rel(ACTIVE_FILE),
      problem: "rolled_back",
      detail:
        `${ACTIVE_FILE} is an older copy (generation ${activeRead.generation}, but ${activeAhead}): ` +
        "it was put back from a backup or an older copy, and every write journaled after that copy " +
        "was taken is missing and cannot be named",
      lost: UNKNOWN_LOST_RANGE,
    });
    if (!damage.damagedFiles.includes(rel(ACTIVE_FILE))) damage.damagedFiles.push(rel(ACTIVE_FILE));
  }
  const manifestAhead = manifest === null ? null : aheadOf(manifest.generation ?? 0, manifestWitnesses);
  if (manifestAhead !== null) {
    damage.findings.push({
      file: rel(MANIFEST_FILE),
      problem: "rolled_back",
      detail:
        `the manifest is an older copy (generation ${manifest?.generation ?? 0}, but ${manifestAhead}): ` +
        "the segments sealed and the refusals recorded after that copy was taken cannot be known",
      lost: UNKNOWN_LOST_RANGE,
    });
    damage.damagedFiles.push(rel(MANIFEST_FILE));
  }
  const highest = {
    active: Math.max(generations.active, ...activeWitnesses.map((seen) => seen.value ?? 0)),
    manifest: Math.max(generations.manifest, ...manifestWitnesses.map((seen) => seen.value ?? 0)),
  };
  return { generations, highest, activeRolledBack: activeAhead !== null };
}

interface Witnessed {
  value: number | undefined;
  file: string;
}

/** "<file> recorded generation N" for every witness past `generation`, or null when none is. */
function aheadOf(generation: number, witnesses: readonly Witnessed[]): string | null {
  const ahead = witnesses.filter((seen) => seen.value !== undefined && seen.value > generation);
  if (ahead.length === 0) return null;
  return ahead.map((seen) => `${seen.file} recorded generation ${seen.value}`).join(" and ");
}

interface ActiveRead {
  records: Record<string, JournalRecord>;
  /** null when the file is missing or unreadable; 0 when it predates generations. */
  generation: number | null;
  manifestGeneration: number | undefined;
}

function inspectActive(
  active: Raw,
  findings: JournalFinding[],
  damagedFiles: string[],
  file: string,
): ActiveRead {
  const unknown = (problem: FindingProblem, detail: string): ActiveRead => {
    findings.push({
      file,
      problem,
      detail: `${detail}: every open write and the most recent settled ones were in it, and cannot be named`,
      lost: UNKNOWN_LOST_RANGE,
    });
    if (problem !== "missing") damagedFiles.push(file);
    return { records: {}, generation: null, manifestGeneration: undefined };
  };
  if (active.status === "missing") return unknown("missing", `${ACTIVE_FILE} is missing`);
  const value = parseJson(active.text);
  if (value === undefined) return unknown("truncated", `${ACTIVE_FILE} is truncated (not complete JSON)`);
  let document: ReturnType<typeof parseActiveDocument>;
  try {
    document = parseActiveDocument(value);
  } catch {
    return unknown("altered", `${ACTIVE_FILE} does not have the journal's format`);
  }
  if (document.version !== 2)
    return unknown("altered", `${ACTIVE_FILE} is of the previous format inside a current journal`);
  const intact: Record<string, JournalRecord> = {};
  const bad: JournalRecord[] = [];
  for (const [key, record] of Object.entries(document.records)) {
    if (recordIntact(record)) intact[key] = record;
    else bad.push(record);
  }
  if (bad.length > 0) {
    const lost: LostRange = {
      records: bad.length,
      keys: bad.map((record) => record.key),
      operationIds: bad.map((record) => record.operationId),
      firstOperationId: null,
      lastOperationId: null,
      createdFrom: Math.min(...bad.map((record) => record.createdAt)),
      settledTo: null,
      known: true,
    };
    findings.push({
      file,
      problem: "record_altered",
      detail: describeLoss(
        `${ACTIVE_FILE}: ${bad.length} record(s) do not match their checksum (bytes changed, or a state edited), operationId(s) ${bad
          .map((record) => record.operationId)
          .join(", ")}`,
        lost,
      ),
      lost,
    });
    damagedFiles.push(file);
  }
  if (document.checksum !== activeChecksum(document.records, document)) {
    findings.push({
      file,
      problem: "altered",
      detail: `${ACTIVE_FILE}: records were removed, added or replaced (its checksum does not match): the missing ones cannot be named`,
      lost: UNKNOWN_LOST_RANGE,
    });
    if (!damagedFiles.includes(file)) damagedFiles.push(file);
  }
  return {
    records: intact,
    generation: document.generation ?? 0,
    manifestGeneration: document.manifestGeneration,
  };
}

type Verified =
  | { ok: true; document: SegmentDocument; entry: ManifestSegment }
  | { ok: false; finding: Omit<JournalFinding, "file"> };

/** A segment checked without the manifest: it parses, is version 2, and every record verifies. */
async function readVerifiedSegment(fs: JournalFs, directory: string, id: number): Promise<Verified> {
  const name = segmentFileName(id);
  const raw = await readRaw(fs, join(directory, name));
  if (raw.status === "missing")
    return {
      ok: false,
      finding: { problem: "missing", detail: `${name} vanished`, lost: UNKNOWN_LOST_RANGE },
    };
  const value = parseJson(raw.text);
  if (value === undefined) {
    return {
      ok: false,
      finding: {
        problem: "truncated",
        detail: `${name} is truncated (not complete JSON); its records cannot be named`,
        lost: UNKNOWN_LOST_RANGE,
      },
    };
  }
  let document: SegmentDocument;
  try {
    document = parseSegmentDocument(value, name);
  } catch {
    return {
      ok: false,
      finding: {
        problem: "altered",
        detail: `${name} does not have the journal's format`,
        lost: UNKNOWN_LOST_RANGE,
      },
    };
  }
  const bad = document.records.filter((record) => !recordIntact(record));
  if (document.version !== 2 || document.id !== id || bad.length > 0) {
    const lost: LostRange = {
      records: document.records.length,
      keys: document.records.map((record) => record.key),
      operationIds: document.records.map((record) => record.operationId),
      firstOperationId: null,
      lastOperationId: null,
      createdFrom: null,
      settledTo: null,
      known: true,
    };
    return {
      ok: false,
      finding: {
        problem: "altered",
        detail: describeLoss(`${name} is altered (${bad.length} record(s) fail their checksum)`, lost),
        lost,
      },
    };
  }
  return { ok: true, document, entry: manifestEntry(document, sha256Hex(raw.text)) };
}

function lostFromEntry(entry: ManifestSegment): LostRange {
  return {
    records: entry.records,
    keys: [...entry.keys],
    operationIds: [],
    firstOperationId: entry.firstOperationId,
    lastOperationId: entry.lastOperationId,
    createdFrom: entry.oldestCreatedAt,
    settledTo: entry.newestSettledAt,
    known: true,
  };
}

function describeLoss(what: string, lost: LostRange): string {
  if (!lost.known) return `${what}; the lost records cannot be named`;
  const span =
    lost.createdFrom !== null && lost.settledTo !== null
      ? ` created from ${new Date(lost.createdFrom).toISOString()}, settled up to ${new Date(lost.settledTo).toISOString()}`
      : "";
  const range =
    lost.firstOperationId !== null && lost.lastOperationId !== null
      ? ` (operationIds ${lost.firstOperationId} … ${lost.lastOperationId})`
      : "";
  return `${what}: ${lost.records ?? "?"} record(s)${range}${span}, their keys known to the manifest`;
}
