import { ConnectorError } from "@t3-connector/core";
import { z } from "zod";
import {
  type DerivedIds,
  JOURNAL_STATES,
  type JournalCommand,
  type JournalError,
  type JournalFilter,
  type JournalReceipt,
  type JournalRecord,
  type ReserveRequest,
} from "./types.js";

/** Files written by this module are checked strictly when read back: a foreign edit stops the open. */
const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const epochMs = z.number().int().nonnegative();

const derivedIdsSchema = z.record(z.string().min(1), z.string().min(1));
const commandSchema = z.strictObject({
  kind: z.enum(["dispatch", "launch", "project"]),
  body: z.record(z.string(), z.unknown()),
});
const receiptSchema = z.record(z.string().min(1), z.union([z.string(), z.number(), z.boolean(), z.null()]));

const recordSchema = z.strictObject({
  key: hex64,
  operationId: z.string().min(1),
  action: z.string().min(1),
  inputHash: hex64,
  environmentId: z.string().min(1),
  destination: z.string().min(1),
  derivedIds: derivedIdsSchema.nullable(),
  state: z.enum(JOURNAL_STATES),
  createdAt: epochMs,
  updatedAt: epochMs,
  settledAt: epochMs.nullable(),
  reconciledAt: epochMs.nullable(),
  receipt: receiptSchema.nullable(),
  error: z.strictObject({ code: z.string().min(1), message: z.string() }).nullable(),
  command: commandSchema.optional(),
  checksum: hex64.optional(),
});

export const ACTIVE_FORMAT = "t3-connector/journal-active";
export const SEGMENT_FORMAT = "t3-connector/journal-segment";
/** Version 2 carries checksums; version 1 (no checksums, no manifest) is migrated on first open. */
export const JOURNAL_FORMAT_VERSION = 2;
export const LEGACY_FORMAT_VERSION = 1;

/** The lowdb document of the active segment: every open record and the recent settled ones. */
export interface ActiveDocument {
  format: typeof ACTIVE_FORMAT;
  version: 2;
  /**
   * How many times the active segment was written, this write included (ADR 0006 §14): it only
   * grows, and the manifest, the identity marker and the audit log each record the value they saw,
   * so an older copy put back is noticed. Files written before it existed read as 0.
   */
  generation: number;
  /** The manifest's generation when this was written: an older manifest put back is noticed. */
  manifestGeneration: number;
  /** `activeChecksum(records, generations)`, computed when the document is serialised. */
  checksum: string;
  records: Record<string, JournalRecord>;
}

/** A sealed segment: settled records only, written once, never rewritten, deleted whole by retention. */
export interface SegmentDocument {
  format: typeof SEGMENT_FORMAT;
  version: 1 | 2;
  id: number;
  sealedAt: number;
  records: JournalRecord[];
}

const generationSchema = z.number().int().nonnegative();

const activeSchema = z.strictObject({
  format: z.literal(ACTIVE_FORMAT),
  version: z.union([z.literal(1), z.literal(2)]),
  generation: generationSchema.optional(),
  manifestGeneration: generationSchema.optional(),
  checksum: hex64.optional(),
  records: z.record(hex64, recordSchema),
});

const segmentSchema = z.strictObject({
  format: z.literal(SEGMENT_FORMAT),
  version: z.union([z.literal(1), z.literal(2)]),
  id: z.number().int().positive(),
  sealedAt: epochMs,
  records: z.array(recordSchema),
});

/** Structure only (either version); checksums are checked by the caller, which names the damage. */
export interface ParsedActive {
  version: 1 | 2;
  /** Absent in files written before generations existed. */
  generation?: number;
  manifestGeneration?: number;
  checksum?: string;
  records: Record<string, JournalRecord>;
}

export function parseActiveDocument(value: unknown): ParsedActive {
  const parsed = activeSchema.safeParse(value);
  if (!parsed.success) throw corrupt("the active journal segment");
  for (const [key, record] of Object.entries(parsed.data.records)) {
    if (record.key !== key) throw corrupt("the active journal segment");
  }
  return parsed.data as ParsedActive;
}

export function parseSegmentDocument(value: unknown, name: string): SegmentDocument {
  const parsed = segmentSchema.safeParse(value);
  if (!parsed.success) throw corrupt(`journal segment ${name}`);
  if (parsed.data.records.some((record) => record.state !== "completed" && record.state !== "refused")) {
    throw corrupt(`journal segment ${name}`);
  }
  return parsed.data as SegmentDocument;
}

function corrupt(what: string): ConnectorError {
  return new ConnectorError("journal_unavailable", `${what} does not have the journal's format`);
}

/** The fields `copyRecord` names, one by one. */
type CopiedField =
  | "key"
  | "operationId"
  | "action"
  | "inputHash"
  | "environmentId"
  | "destination"
  | "derivedIds"
  | "state"
  | "createdAt"
  | "updatedAt"
  | "settledAt"
  | "reconciledAt"
  | "receipt"
  | "error"
  | "command";

/**
 * A caller's copy: deep enough that nobody can change the journal's own, and without the checksum.
 * Its fields are named one by one, in the order every record holds them (`newPreparingRecord`, the
 * strict schema a loaded record passed), `command` last: a rest spread that leaves out `checksum`
 * cost more than the rest of the copy, three times per write.
 */
export function copyRecord(record: JournalRecord): JournalRecord {
  // The compiler stops here when a record gains a field this copy does not name: it would be dropped.
  const everyFieldNamed: [Exclude<keyof JournalRecord, CopiedField | "checksum">] extends [never]
    ? true
    : never = true;
  void everyFieldNamed;
  const copy: JournalRecord = {
    key: record.key,
    operationId: record.operationId,
    action: record.action,
    inputHash: record.inputHash,
    environmentId: record.environmentId,
    destination: record.destination,
    derivedIds: record.derivedIds === null ? null : { ...record.derivedIds },
    state: record.state,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    settledAt: record.settledAt,
    reconciledAt: record.reconciledAt,
    receipt: record.receipt === null ? null : { ...record.receipt },
    error: record.error === null ? null : { ...record.error },
  };
  if (record.command !== undefined) copy.command = structuredClone(record.command);
  return copy;
}

/** The command must load back as JSON exactly as it was sent. */
export function sanitiseCommand(command: JournalCommand): JournalCommand {
  const copy = JSON.parse(JSON.stringify(command)) as unknown;
  const parsed = commandSchema.safeParse(copy);
  if (!parsed.success)
    throw new ConnectorError(
      "invalid_input",
      "a journaled command is a dispatch, a launch or a project mutation",
    );
  return parsed.data;
}

const MAX_ERROR_MESSAGE = 2000;

/** Errors are kept short and typed: a clipped message, never a stack or a `cause`. */
export function sanitiseError(error: JournalError): JournalError {
  if (typeof error?.code !== "string" || error.code.length === 0 || typeof error.message !== "string") {
    throw new ConnectorError("invalid_input", "a journal error needs a non-empty code and a message");
  }
  return { code: error.code, message: error.message.slice(0, MAX_ERROR_MESSAGE) };
}

/** Checked on the way in: whatever is written must load back, or the journal could not reopen. */
export function sanitiseDerivedIds(ids: DerivedIds): DerivedIds {
  const parsed = derivedIdsSchema.safeParse(ids);
  if (!parsed.success)
    throw new ConnectorError("invalid_input", "derived ids must map names to non-empty strings");
  return { ...parsed.data };
}

export function sanitiseReceipt(receipt: JournalReceipt): JournalReceipt {
  const parsed = receiptSchema.safeParse(receipt);
  if (
    !parsed.success ||
    Object.values(parsed.data).some((v) => typeof v === "number" && !Number.isFinite(v))
  ) {
    throw new ConnectorError(
      "invalid_input",
      "a receipt must map names to strings, finite numbers, booleans or null",
    );
  }
  return { ...parsed.data };
}

export function newPreparingRecord(
  request: ReserveRequest,
  key: string,
  inputHash: string,
  now: number,
): JournalRecord {
  return {
    key,
    operationId: request.operationId,
    action: request.action,
    inputHash,
    environmentId: request.environmentId,
    destination: request.destination,
    derivedIds: null,
    state: "preparing",
    createdAt: now,
    updatedAt: now,
    settledAt: null,
    reconciledAt: null,
    receipt: null,
    error: null,
  };
}

export function recordFilter(filter: JournalFilter): (record: JournalRecord) => boolean {
  return (record) =>
    (filter.states === undefined || filter.states.includes(record.state)) &&
    (filter.environmentId === undefined || record.environmentId === filter.environmentId) &&
    (filter.action === undefined || record.action === filter.action) &&
    (filter.operationId === undefined || record.operationId === filter.operationId) &&
    (filter.updatedSince === undefined || record.updatedAt >= filter.updatedSince);
}
