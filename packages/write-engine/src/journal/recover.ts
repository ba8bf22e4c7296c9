import { join, resolve } from "node:path";
import { type Clock, ConnectorError, systemClock } from "@t3-connector/core";
import {
  acquireJournalLock,
  ensurePrivateDirectory,
  type JournalFs,
  nodeJournalFs,
  syncDirectory,
} from "@t3-connector/core/durable";
import { journalDamaged } from "./damage.js";
import { inspectJournal, JOURNAL_DIRECTORY, type JournalFinding } from "./inspect.js";
import {
  type LostKey,
  type LostOperation,
  MARKER_FILE,
  type Manifest,
  newJournalId,
  newMarker,
  removeMarkerTemps,
  type UnknownLoss,
  writeManifest,
  writeMarker,
} from "./manifest.js";
import { writeActive } from "./migrate.js";
import { DEFAULT_RETENTION_MS, removeLeftoverTemps } from "./open-journal.js";
import type { JournalRecord } from "./types.js";

export interface JournalCheckOptions {
  stateDir: string;
  clock?: Clock;
  fs?: JournalFs;
  /** How long a recovery refuses what it lost (default: the published retention, 7 days). */
  retentionMs?: number;
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
}

/** Check every journal file without changing anything (takes the lock: no gate may be running). */
export async function verifyJournal(options: JournalCheckOptions): Promise<JournalReport> {
  return withLock(options, async (fs, stateDir) => (await inspectWithReport(fs, stateDir)).report);
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
    const { report, inspection } = await inspectWithReport(fs, stateDir);
    const nothing = { report, recovered: false, lostKeys: [], unknownLoss: null, movedAside: [] };
    if (inspection.kind !== "journal" || inspection.findings.length === 0) return nothing;
    const now = Math.floor(clock.now());
    const until = now + retentionMs;
    const directory = join(stateDir, JOURNAL_DIRECTORY);

    const sealedKeys = new Set(inspection.segments.flatMap((document) => document.records.map((r) => r.key)));
    const active: Record<string, JournalRecord> = {};
    for (const [key, record] of Object.entries(inspection.activeRecords)) {
      if (!sealedKeys.has(key)) active[key] = record;
    }
    const held = (key: string) => sealedKeys.has(key) || active[key] !== undefined;
    const lostKeys: LostKey[] = [];
    for (const finding of inspection.findings) {
      finding.lost.keys.forEach((key, index) => {
        if (held(key) || lostKeys.some((lost) => lost.key === key)) return;
        const operationId = finding.lost.operationIds[index] ?? null;
        lostKeys.push({ key, operationId, file: finding.file, recoveredAt: now, until });
      });
    }
    const unknownFiles = inspection.findings.filter((finding) => !finding.lost.known).map((f) => f.file);
    const unknownLoss: UnknownLoss | null =
      unknownFiles.length === 0 ? null : { files: unknownFiles, recoveredAt: now, until };

    const stamp = new Date(now).toISOString().replace(/[:.]/g, "-");
    const movedAside: string[] = [];
    for (const file of inspection.damagedFiles) {
      const from = join(stateDir, file);
      const to = `${from}.damaged-${stamp}`;
      await fs.rename(from, to);
      movedAside.push(`${file}.damaged-${stamp}`);
    }
    if (movedAside.length > 0) {
      await syncDirectory(fs, directory);
      if (inspection.damagedFiles.includes(MARKER_FILE)) await syncDirectory(fs, stateDir);
    }

    const previous = inspection.manifest;
    const journalId = inspection.marker?.journalId ?? previous?.journalId ?? newJournalId();
    const onDiskIds = inspection.findings
      .map((finding) => /segment-(\d{8})\.json$/.exec(finding.file)?.[1])
      .filter((id): id is string => id !== undefined)
      .map(Number);
    const manifest: Manifest = {
      format: "t3-connector/journal-manifest",
      version: 1,
      journalId,
      createdAt: previous?.createdAt ?? inspection.marker?.createdAt ?? now,
      writtenAt: now,
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
    await writeManifest(fs, directory, manifest);
    await writeActive(fs, directory, active);
    await writeMarker(
      fs,
      stateDir,
      newMarker(journalId, inspection.marker?.createdAt ?? manifest.createdAt, "created"),
    );
    return { report, recovered: true, lostKeys, unknownLoss, movedAside };
  });
}

async function withLock<T>(
  options: JournalCheckOptions,
  run: (fs: JournalFs, stateDir: string) => Promise<T>,
): Promise<T> {
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
    return await run(fs, stateDir);
  } finally {
    await lock.release().catch(() => undefined);
  }
}

async function inspectWithReport(fs: JournalFs, stateDir: string) {
  const inspection = await inspectJournal(fs, stateDir);
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
    const { inspection } = await inspectWithReport(fs, stateDir);
    if (inspection.kind === "journal" && inspection.findings.length > 0) {
      throw journalDamaged(stateDir, inspection.findings);
    }
    const now = Math.floor(clock.now());
    const manifest = inspection.kind === "journal" ? inspection.manifest : null;
    const inForce = (manifest?.unknownLosses ?? []).filter((loss) => loss.until > now);
    if (
      inspection.kind !== "journal" ||
      manifest === null ||
      manifest === undefined ||
      inForce.length === 0
    ) {
      throw new ConnectorError("invalid_input", "no unknown loss is in force: there is nothing to lift");
    }
    const held = new Set(
      [
        ...inspection.segments.flatMap((document) => document.records),
        ...Object.values(inspection.activeRecords),
      ].map((record) => `${record.environmentId}\u0000${record.operationId}`),
    );
    const stillRefused: LostOperation[] = [];
    for (const loss of inForce) {
      for (const seen of options.audited) {
        const id = `${seen.environmentId}\u0000${seen.operationId}`;
        const before = seen.at <= loss.recoveredAt && seen.at > loss.recoveredAt - retentionMs;
        if (!before || held.has(id)) continue;
        if (stillRefused.some((lost) => `${lost.environmentId}\u0000${lost.operationId}` === id)) continue;
        stillRefused.push({
          environmentId: seen.environmentId,
          operationId: seen.operationId,
          source: "audit",
          recoveredAt: loss.recoveredAt,
          until: loss.until,
        });
      }
    }
    const directory = join(stateDir, JOURNAL_DIRECTORY);
    await writeManifest(fs, directory, {
      ...manifest,
      writtenAt: now,
      lostOperations: [...manifest.lostOperations.filter((lost) => lost.until > now), ...stillRefused],
      unknownLosses: [],
    });
    return { lifted: inForce, stillRefused };
  });
}
