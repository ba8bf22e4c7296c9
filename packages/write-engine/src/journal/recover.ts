import { join } from "node:path";
import { type Clock, ConnectorError, systemClock } from "@t3-connector/core";
import { type JournalFs, syncDirectory } from "@t3-connector/core/durable";
import { journalDamaged } from "./damage.js";
import type { JournalFinding } from "./findings.js";
import { inspectJournal, JOURNAL_DIRECTORY, type JournalInspection } from "./inspect.js";
import {
  type LostKey,
  type LostOperation,
  type Manifest,
  newJournalId,
  newMarker,
  type UnknownLoss,
  writeManifest,
  writeMarker,
} from "./manifest.js";
import { writeActive } from "./migrate.js";
import { DEFAULT_RETENTION_MS, lockJournalDirectory } from "./open-journal.js";
import type { JournalRecord } from "./types.js";
import type { JournalWitness } from "./witness.js";

export interface JournalCheckOptions {
  stateDir: string;
  clock?: Clock;
  fs?: JournalFs;
  /** How long a recovery refuses what it lost (default: the published retention, 7 days). */
  retentionMs?: number;
  /** The gate's audit log (ADR 0006 §14–§15): checked with the journal's own files. */
  witness?: JournalWitness;
}

/** What `journal verify` reports (and `journal recover` reports before it acts). */
export interface JournalReport {
  stateDir: string;
  /** `fresh`: never had a journal; `legacy`: the previous format, migrated on the next open. */
  status: "fresh" | "legacy" | "intact" | "damaged";
  findings: JournalFinding[];
  /** Records that read back intact. */
  intact: { segments: number; sealedRecords: number; activeRecords: number };
  /** What earlier recoveries accepted to lose and is refused until its `until`. */
  refused: { keys: number; unknownLosses: UnknownLoss[] };
}

export interface RecoveryResult {
  report: JournalReport;
  /** false when there was nothing to recover (the journal was intact, fresh or of the previous format). */
  recovered: boolean;
  /** Keys refused from now on, named (a lost segment's, an altered record's). */
  lostKeys: LostKey[];
  /** Set when records were lost that nobody can name: every unknown operationId is refused until `until`. */
  unknownLoss: UnknownLoss | null;
  /** Damaged files, kept for forensics under `<name>.damaged-<time>`. */
  movedAside: string[];
  /** The active segment's generation the recovery wrote (the audit line about it records it). */
  generation: number;
}

/** Check every journal file without changing anything (takes the lock: no gate may be running). */
export async function verifyJournal(options: JournalCheckOptions): Promise<JournalReport> {
  return withLock(
    options,
    async (fs, stateDir) => (await inspectWithReport(fs, stateDir, options.witness)).report,
  );
}

/**
 * `journal recover --accept-loss`: rebuild the journal from what survives and record what was lost,
 * so that a retry of a lost operation is refused (`operation_lost`), never sent again:
 * 1. each damaged file is renamed `<name>.damaged-<time>` (kept, out of the journal's way);
 * 2. the manifest is rewritten listing the intact segments, the lost keys it can name (refused
 *    until now + retention) and, when records were lost that nobody can name, an unknown loss
 *    (every operationId the journal does not hold is refused until now + retention);
 * 3. the active segment is rewritten with its intact records; the marker with the journal's id.
 * The caller records the result in the audit log.
 */
export async function recoverJournal(options: JournalCheckOptions): Promise<RecoveryResult> {
  const clock = options.clock ?? systemClock;
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  return withLock(options, async (fs, stateDir) => {
    const { report, inspection } = await inspectWithReport(fs, stateDir, options.witness);
    if (inspection.kind !== "journal" || inspection.findings.length === 0) {
      return { report, recovered: false, lostKeys: [], unknownLoss: null, movedAside: [], generation: 0 };
    }
    const now = Math.floor(clock.now());
    const until = now + retentionMs;
    const { active, lostKeys } = survivingRecords(inspection, now, until);
    const unknownFiles = inspection.findings.filter((finding) => !finding.lost.known).map((f) => f.file);
    const unknownLoss: UnknownLoss | null =
      unknownFiles.length === 0 ? null : { files: unknownFiles, recoveredAt: now, until };
    const movedAside = await moveDamagedAside(fs, stateDir, inspection, now);
    const generation = await writeRebuiltJournal(fs, stateDir, inspection, {
      now,
      active,
      lostKeys,
      unknownLoss,
    });
    return { report, recovered: true, lostKeys, unknownLoss, movedAside, generation };
  });
}

type CurrentInspection = Extract<JournalInspection, { kind: "journal" }>;

/**
 * The active records a recovery keeps, and the keys it refuses by name from now on: a `preparing`
 * record of an older copy (it may have been sent since), then every key a finding names that no
 * intact file holds.
 */
function survivingRecords(
  inspection: CurrentInspection,
  now: number,
  until: number,
): { active: Record<string, JournalRecord>; lostKeys: LostKey[] } {
  const sealedKeys = new Set(inspection.segments.flatMap((document) => document.records.map((r) => r.key)));
  const active: Record<string, JournalRecord> = {};
  const lostKeys: LostKey[] = [];
  for (const [key, record] of Object.entries(inspection.activeRecords)) {
    if (sealedKeys.has(key)) continue;
    // In an older copy, `preparing` says only that it was not sent THEN: it may have been since,
    // so it is refused by name instead of being adopted and sent by a retry.
    if (inspection.activeRolledBack && record.state === "preparing") {
      const file = `${JOURNAL_DIRECTORY}/active.json`;
      lostKeys.push({ key, operationId: record.operationId, file, recoveredAt: now, until });
      continue;
    }
    active[key] = record;
  }
  const held = (key: string) => sealedKeys.has(key) || active[key] !== undefined;
  for (const finding of inspection.findings) {
    finding.lost.keys.forEach((key, index) => {
      if (held(key) || lostKeys.some((lost) => lost.key === key)) return;
      const operationId = finding.lost.operationIds[index] ?? null;
      lostKeys.push({ key, operationId, file: finding.file, recoveredAt: now, until });
    });
  }
  return { active, lostKeys };
}

/** Each damaged file renamed `<name>.damaged-<time>`: kept for forensics, out of the journal's way. */
async function moveDamagedAside(
  fs: JournalFs,
  stateDir: string,
  inspection: CurrentInspection,
  now: number,
): Promise<string[]> {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, "-");
  const movedAside: string[] = [];
  for (const file of inspection.damagedFiles) {
    const from = join(stateDir, file);
    await fs.rename(from, `${from}.damaged-${stamp}`);
    movedAside.push(`${file}.damaged-${stamp}`);
  }
  if (movedAside.length > 0) {
    await syncDirectory(fs, join(stateDir, JOURNAL_DIRECTORY));
    if (inspection.damagedFiles.some((file) => !file.startsWith(`${JOURNAL_DIRECTORY}/`))) {
      await syncDirectory(fs, stateDir);
    }
  }
  return movedAside;
}

interface Rebuilt {
  readonly now: number;
  readonly active: Record<string, JournalRecord>;
  readonly lostKeys: LostKey[];
  readonly unknownLoss: UnknownLoss | null;
}

/** The manifest, the active segment and the marker, written past every generation any file recorded. */
async function writeRebuiltJournal(
  fs: JournalFs,
  stateDir: string,
  inspection: CurrentInspection,
  rebuilt: Rebuilt,
): Promise<number> {
  // The audit log failed its check (moved aside, or missing): the writes it named before now
  // cannot be checked any more, which `accept-unknown-loss` must know (ADR 0006 §15).
  const auditRestarted = inspection.witness.findings.length > 0;
  const manifest = rebuiltManifest(inspection, rebuilt, auditRestarted);
  const directory = join(stateDir, JOURNAL_DIRECTORY);
  const activeGeneration = inspection.highest.active + 1;
  const manifestGeneration = await writeManifest(fs, directory, manifest);
  await writeActive(fs, directory, rebuilt.active, { generation: activeGeneration, manifestGeneration });
  // The audit anchor stays only while the audit log it points into is the one still in place.
  const anchor = auditRestarted ? undefined : inspection.marker?.audit;
  await writeMarker(
    fs,
    stateDir,
    newMarker(manifest.journalId, inspection.marker?.createdAt ?? manifest.createdAt, "created", {
      activeGeneration,
      manifestGeneration,
      audit: anchor,
    }),
  );
  return activeGeneration;
}

/** The intact segments, and every refusal still in force plus the ones this recovery adds. */
function rebuiltManifest(inspection: CurrentInspection, rebuilt: Rebuilt, auditRestarted: boolean): Manifest {
  const { now, lostKeys, unknownLoss } = rebuilt;
  const previous = inspection.manifest;
  const onDiskIds = inspection.findings
    .map((finding) => /segment-(\d{8})\.json$/.exec(finding.file)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number);
  const restartedAt = auditRestarted ? now : previous?.auditRestartedAt;
  return {
    format: "t3-connector/journal-manifest",
    version: 1,
    journalId: inspection.marker?.journalId ?? previous?.journalId ?? newJournalId(),
    createdAt: previous?.createdAt ?? inspection.marker?.createdAt ?? now,
    writtenAt: now,
    generation: inspection.highest.manifest,
    activeGeneration: inspection.highest.active,
    ...(restartedAt === undefined ? {} : { auditRestartedAt: restartedAt }),
    nextSegmentId: Math.max(
      previous?.nextSegmentId ?? 1,
      ...inspection.entries.map((entry) => entry.id + 1),
      ...onDiskIds.map((id) => id + 1),
    ),
    segments: inspection.entries,
    lostKeys: [...(previous?.lostKeys ?? []).filter((lost) => lost.until > now), ...lostKeys],
    lostOperations: (previous?.lostOperations ?? []).filter((lost) => lost.until > now),
    unknownLosses: [
      ...(previous?.unknownLosses ?? []).filter((loss) => loss.until > now),
      ...(unknownLoss === null ? [] : [unknownLoss]),
    ],
  };
}

async function withLock<T>(
  options: JournalCheckOptions,
  run: (fs: JournalFs, stateDir: string) => Promise<T>,
): Promise<T> {
  const { fs, stateDir, lock } = await lockJournalDirectory(options);
  try {
    return await run(fs, stateDir);
  } finally {
    await lock.release().catch(() => undefined);
  }
}

async function inspectWithReport(fs: JournalFs, stateDir: string, witness: JournalWitness | undefined) {
  const inspection = await inspectJournal(fs, stateDir, witness);
  const base = { stateDir, findings: [] as JournalFinding[] };
  if (inspection.kind === "fresh") {
    return {
      inspection,
      report: {
        ...base,
        status: "fresh",
        intact: none(),
        refused: { keys: 0, unknownLosses: [] },
      } as JournalReport,
    };
  }
  if (inspection.kind === "legacy") {
    const sealedRecords = inspection.segments.reduce((sum, document) => sum + document.records.length, 0);
    return {
      inspection,
      report: {
        ...base,
        status: "legacy",
        intact: {
          segments: inspection.segments.length,
          sealedRecords,
          activeRecords: Object.keys(inspection.activeRecords).length,
        },
        refused: { keys: 0, unknownLosses: [] },
      } as JournalReport,
    };
  }
  const report: JournalReport = {
    ...base,
    status: inspection.findings.length === 0 ? "intact" : "damaged",
    findings: inspection.findings,
    intact: {
      segments: inspection.segments.length,
      sealedRecords: inspection.segments.reduce((sum, document) => sum + document.records.length, 0),
      activeRecords: Object.keys(inspection.activeRecords).length,
    },
    refused: {
      keys: inspection.manifest?.lostKeys.length ?? 0,
      unknownLosses: inspection.manifest?.unknownLosses ?? [],
    },
  };
  return { inspection, report };
}

function none() {
  return { segments: 0, sealedRecords: 0, activeRecords: 0 };
}

/** A write the audit log saw dispatched (`dispatch`, `conditional_send` or `reconciled` lines). */
export interface AuditedOperation {
  environmentId: string;
  operationId: string;
  /** When the audit line was written (epoch ms). */
  at: number;
}

export interface LiftResult {
  /** The unknown losses that no longer refuse every operationId. */
  lifted: UnknownLoss[];
  /** Audit-named operations the journal does not hold: still refused until each loss's `until`. */
  stillRefused: LostOperation[];
  /** The active segment's generation the lift wrote (the audit line about it records it). */
  generation: number;
}

/**
 * `journal accept-unknown-loss --checked-t3`: after an operator checked T3 for the writes made
 * before an unknown loss, new operationIds are no longer refused. What the audit log names as
 * dispatched in the retention window before the loss, and the journal does not hold, stays refused
 * by environment and operationId: those are the writes a client might retry. The residual risk is
 * a write whose audit line a crash cut off; its retry is sent again under the same derived ids,
 * which T3 dedupes by commandId while it keeps the receipt (ADR 0006 §11).
 */
export async function liftUnknownLoss(
  options: JournalCheckOptions & { audited: readonly AuditedOperation[] },
): Promise<LiftResult> {
  const clock = options.clock ?? systemClock;
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  return withLock(options, async (fs, stateDir) => {
    const { inspection } = await inspectWithReport(fs, stateDir, options.witness);
    const now = Math.floor(clock.now());
    const { current, manifest, inForce } = lossesToLift(inspection, stateDir, now, retentionMs);
    const stillRefused = auditNamedBeforeLoss(current, inForce, options.audited, retentionMs);
    const generation = await writeLifted(fs, stateDir, current, {
      ...manifest,
      writtenAt: now,
      activeGeneration: current.highest.active,
      lostOperations: [...manifest.lostOperations.filter((lost) => lost.until > now), ...stillRefused],
      unknownLosses: [],
    });
    return { lifted: inForce, stillRefused, generation };
  });
}

/**
 * The unknown losses in force, once the journal and the audit log (the evidence of what stays
 * refused) pass their checks and the audit log covers the retention window before each loss.
 */
function lossesToLift(
  inspection: JournalInspection,
  stateDir: string,
  now: number,
  retentionMs: number,
): { current: CurrentInspection; manifest: Manifest; inForce: UnknownLoss[] } {
  if (inspection.kind === "journal" && inspection.findings.length > 0) {
    throw journalDamaged(stateDir, inspection.findings);
  }
  const manifest = inspection.kind === "journal" ? inspection.manifest : null;
  const inForce = (manifest?.unknownLosses ?? []).filter((loss) => loss.until > now);
  if (inspection.kind !== "journal" || manifest === null || manifest === undefined || inForce.length === 0) {
    throw new ConnectorError("invalid_input", "no unknown loss is in force: there is nothing to lift");
  }
  const uncovered = inForce.filter(
    (loss) =>
      manifest.auditRestartedAt !== undefined && manifest.auditRestartedAt > loss.recoveredAt - retentionMs,
  );
  if (uncovered.length > 0) {
    throw new ConnectorError(
      "journal_damaged",
      `the audit log was damaged and set aside on ${iso(manifest.auditRestartedAt ?? 0)}, so it cannot name the ` +
        `writes made before the loss of ${uncovered.flatMap((loss) => loss.files).join(", ")}: lifting the loss would let ` +
        `them be sent again. The refusal ends on its own at ${iso(Math.max(...uncovered.map((loss) => loss.until)))}`,
      {
        details: {
          stateDir,
          auditRestartedAt: iso(manifest.auditRestartedAt ?? 0),
          reason: "audit_not_covering",
        },
      },
    );
  }
  return { current: inspection, manifest, inForce };
}

/** What the audit log names as dispatched in the window before a loss, and the journal does not hold. */
function auditNamedBeforeLoss(
  inspection: CurrentInspection,
  inForce: readonly UnknownLoss[],
  audited: readonly AuditedOperation[],
  retentionMs: number,
): LostOperation[] {
  const idOf = (seen: { environmentId: string; operationId: string }) =>
    `${seen.environmentId}\u0000${seen.operationId}`;
  const held = new Set(
    [
      ...inspection.segments.flatMap((document) => document.records),
      ...Object.values(inspection.activeRecords),
    ].map(idOf),
  );
  const stillRefused: LostOperation[] = [];
  for (const loss of inForce) {
    for (const seen of audited) {
      const before = seen.at <= loss.recoveredAt && seen.at > loss.recoveredAt - retentionMs;
      if (!before || held.has(idOf(seen))) continue;
      if (stillRefused.some((lost) => idOf(lost) === idOf(seen))) continue;
      stillRefused.push({
        environmentId: seen.environmentId,
        operationId: seen.operationId,
        source: "audit",
        recoveredAt: loss.recoveredAt,
        until: loss.until,
      });
    }
  }
  return stillRefused;
}

/**
 * The manifest without the lifted losses, then the active segment and the marker recording it:
 * the manifest that still held the loss is then an older copy, and putting it back is noticed.
 */
async function writeLifted(
  fs: JournalFs,
  stateDir: string,
  inspection: CurrentInspection,
  manifest: Manifest,
): Promise<number> {
  const directory = join(stateDir, JOURNAL_DIRECTORY);
  const activeGeneration = inspection.highest.active + 1;
  const manifestGeneration = await writeManifest(fs, directory, manifest);
  await writeActive(fs, directory, inspection.activeRecords, {
    generation: activeGeneration,
    manifestGeneration,
  });
  await writeMarker(
    fs,
    stateDir,
    newMarker(
      inspection.marker?.journalId ?? manifest.journalId,
      inspection.marker?.createdAt ?? manifest.createdAt,
      "created",
      { activeGeneration, manifestGeneration, audit: inspection.marker?.audit },
    ),
  );
  return activeGeneration;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
