import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { sha256Hex } from "@t3-connector/core";
import type { JournalFs } from "@t3-connector/core/durable";
import { type DirectoryHandle, readPrivateText, writeFileDurably } from "@t3-connector/core/durable";
import { z } from "zod";

/**
 * What the journal should contain. The manifest lists every sealed segment (its record count, the
 * SHA-256 of its bytes and the keys it holds, so a lost segment's operations can be named and
 * refused) and the ranges an operator accepted to lose. The marker, outside the journal directory,
 * says a journal was created here: a state directory that never had one is told apart from one
 * whose journal was emptied or deleted.
 */
export const MANIFEST_FILE = "manifest.json";
export const MARKER_FILE = "journal-identity.json";
const MANIFEST_FORMAT = "t3-connector/journal-manifest";
const MARKER_FORMAT = "t3-connector/journal-identity";

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const epochMs = z.number().int().nonnegative();

const segmentEntrySchema = z.strictObject({
  id: z.number().int().positive(),
  file: z.string().min(1),
  records: z.number().int().nonnegative(),
  sha256: hex64,
  oldestCreatedAt: epochMs,
  newestSettledAt: epochMs,
  /** The operationIds of its oldest and newest record: the range an operator is told it lost. */
  firstOperationId: z.string().nullable(),
  lastOperationId: z.string().nullable(),
  keys: z.array(hex64),
});

const lostKeySchema = z.strictObject({
  key: hex64,
  operationId: z.string().nullable(),
  file: z.string().min(1),
  recoveredAt: epochMs,
  until: epochMs,
});

/**
 * An operation the journal no longer holds but the audit log names as dispatched before an
 * unknown loss: kept refused when the operator lifts that loss (`journal accept-unknown-loss`).
 * Named by environment and operationId, since the audit log does not carry the caller of the key.
 */
const lostOperationSchema = z.strictObject({
  environmentId: z.string().min(1),
  operationId: z.string().min(1),
  source: z.literal("audit"),
  recoveredAt: epochMs,
  until: epochMs,
});

const unknownLossSchema = z.strictObject({
  files: z.array(z.string().min(1)),
  recoveredAt: epochMs,
  until: epochMs,
});

const generation = z.number().int().nonnegative();

const manifestSchema = z.strictObject({
  format: z.literal(MANIFEST_FORMAT),
  version: z.literal(1),
  journalId: z.string().min(1),
  createdAt: epochMs,
  writtenAt: epochMs,
  /**
   * How many times the manifest was written, this write included, and the active segment's
   * generation that was durable then (ADR 0006 §14). Absent in manifests written before them.
   */
  generation: generation.optional(),
  activeGeneration: generation.optional(),
  /**
   * When a recovery moved a damaged audit log aside: the writes it named before then cannot be
   * checked any more, so an unknown loss whose window reaches back before it cannot be lifted.
   */
  auditRestartedAt: epochMs.optional(),
  nextSegmentId: z.number().int().positive(),
  segments: z.array(segmentEntrySchema),
  lostKeys: z.array(lostKeySchema),
  lostOperations: z.array(lostOperationSchema),
  unknownLosses: z.array(unknownLossSchema),
  checksum: hex64,
});

/**
 * Where the audit log's hash chain stood when the marker was written: its line count and the hash
 * of its last line. A later audit log must still hold that line at that place (ADR 0006 §15).
 */
const auditAnchorSchema = z.strictObject({ lines: z.number().int().nonnegative(), head: hex64 });

const markerSchema = z.strictObject({
  format: z.literal(MARKER_FORMAT),
  journalId: z.string().min(1),
  createdAt: epochMs,
  /** `creating`/`migrating` until the journal's files are complete; then `created`. */
  state: z.enum(["creating", "migrating", "created"]),
  /** The generations durable when the marker was written (at creation, each gate start and stop, recovery). */
  activeGeneration: generation.optional(),
  manifestGeneration: generation.optional(),
  audit: auditAnchorSchema.optional(),
});

export type ManifestSegment = z.infer<typeof segmentEntrySchema>;
/** An operation whose record was lost and accepted as lost: refused until `until`. */
export type LostKey = z.infer<typeof lostKeySchema>;
export type LostOperation = z.infer<typeof lostOperationSchema>;
/** Records were lost that nobody can name: every operation the journal does not hold is refused until `until`. */
export type UnknownLoss = z.infer<typeof unknownLossSchema>;
export type Manifest = Omit<z.infer<typeof manifestSchema>, "checksum">;
export type Marker = z.infer<typeof markerSchema>;
export type AuditAnchor = z.infer<typeof auditAnchorSchema>;

export type ReadResult<T> =
  | { status: "missing" }
  | { status: "damaged"; reason: string }
  | { status: "ok"; value: T };

export function newJournalId(): string {
  return randomUUID();
}

export function emptyManifest(journalId: string, now: number): Manifest {
  return {
    format: MANIFEST_FORMAT,
    version: 1,
    journalId,
    createdAt: now,
    writtenAt: now,
    generation: 0,
    activeGeneration: 0,
    nextSegmentId: 1,
    segments: [],
    lostKeys: [],
    lostOperations: [],
    unknownLosses: [],
  };
}

/**
 * The manifest's checksum covers its JSON text as written, minus the checksum itself; JSON.parse
 * keeps key order, so re-serialising the parsed body reproduces exactly the text that was hashed.
 */
export function serializeManifest(manifest: Manifest): string {
  const { checksum: _old, ...body } = manifest as Manifest & { checksum?: string };
  const text = JSON.stringify(body);
  return JSON.stringify({ ...body, checksum: sha256Hex(text) });
}

/**
 * Write the manifest durably as its next generation: `manifest.generation` is advanced on the
 * object itself (the caller keeps the manifest it wrote) and answered.
 */
export async function writeManifest(
  fs: JournalFs,
  directory: string,
  manifest: Manifest,
  handle?: DirectoryHandle,
): Promise<number> {
  const generation = (manifest.generation ?? 0) + 1;
  await writeFileDurably(
    fs,
    join(directory, MANIFEST_FILE),
    serializeManifest({ ...manifest, generation }),
    handle,
  );
  manifest.generation = generation;
  return generation;
}

export async function readManifest(fs: JournalFs, directory: string): Promise<ReadResult<Manifest>> {
  const text = await readPrivateText(fs, join(directory, MANIFEST_FILE));
  if (text === null) return { status: "missing" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { status: "damaged", reason: "it is truncated or not JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { status: "damaged", reason: "it is not a manifest" };
  }
  const { checksum, ...body } = value as Record<string, unknown>;
  if (checksum !== sha256Hex(JSON.stringify(body))) {
    return { status: "damaged", reason: "its checksum does not match its content (bytes were changed)" };
  }
  const parsed = manifestSchema.safeParse(value);
  if (!parsed.success) return { status: "damaged", reason: "it does not have the manifest's format" };
  const { checksum: _checked, ...manifest } = parsed.data;
  return { status: "ok", value: manifest };
}

export async function writeMarker(fs: JournalFs, stateDir: string, marker: Marker): Promise<void> {
  await writeFileDurably(fs, join(stateDir, MARKER_FILE), JSON.stringify(marker));
}

export function newMarker(
  journalId: string,
  now: number,
  state: Marker["state"],
  stamp: Pick<Marker, "activeGeneration" | "manifestGeneration" | "audit"> = {},
): Marker {
  return { format: MARKER_FORMAT, journalId, createdAt: now, state, ...definedOnly(stamp) };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}

/** A marker write a crash interrupted leaves `.journal-identity.json.<pid>.<n>.tmp`; we hold the lock. */
const MARKER_TEMP_PATTERN = /^\.journal-identity\.json\.\d+\.\d+\.tmp$/;

export async function removeMarkerTemps(fs: JournalFs, stateDir: string): Promise<void> {
  for (const name of await fs.readdir(stateDir)) {
    if (MARKER_TEMP_PATTERN.test(name)) await fs.unlink(join(stateDir, name));
  }
}

export async function readMarker(fs: JournalFs, stateDir: string): Promise<ReadResult<Marker>> {
  const text = await readPrivateText(fs, join(stateDir, MARKER_FILE));
  if (text === null) return { status: "missing" };
  try {
    const parsed = markerSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { status: "ok", value: parsed.data };
  } catch {
    // reported below
  }
  return { status: "damaged", reason: "it is truncated or not the journal's identity file" };
}
