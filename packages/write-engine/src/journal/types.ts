/**
 * The shape of one idempotency record. A record never holds the input: only the hash of the
 * input's canonical JSON. The exact command sent to T3 (which may hold message text) is kept only
 * while the record is `uncertain`, so that settlement can send the very same command again, and it
 * is erased when the record settles: a settled record, and so every sealed segment, holds no text.
 */
export const JOURNAL_STATES = ["preparing", "uncertain", "completed", "refused"] as const;

/**
 * - `preparing`: reserved; nothing has been sent yet.
 * - `uncertain`: the ids that will be sent are recorded; a send may or may not have reached T3.
 *   Never resent: only reconciliation (reading T3) settles it.
 * - `completed`: T3 acknowledged it; `receipt` holds what T3 returned.
 * - `refused`: provably not applied; `error` says why.
 */
export type JournalState = (typeof JOURNAL_STATES)[number];

/** States that retention may never prune: the outcome is still open. */
export const OPEN_STATES: readonly JournalState[] = ["preparing", "uncertain"];

export function isSettled(state: JournalState): boolean {
  return state === "completed" || state === "refused";
}

/** What T3 returned for the one send, e.g. `{sequence: 42}` or `{threadId, resumed}`. */
export type JournalReceipt = Record<string, string | number | boolean | null>;

/** A typed failure code and a short human message (clipped; never message text). */
export interface JournalError {
  code: string;
  message: string;
}

/** The exact call sent to T3: a command for `dispatchCommand`, or the `launchThread` input. */
export interface JournalCommand {
  /** `project`: a `projects.mutate` mutation (ADR 0074). */
  kind: "dispatch" | "launch" | "project";
  body: Record<string, unknown>;
}

/** Ids sent to T3 (`commandId`, `messageId`, `threadId`, …), all derived from the key. */
export type DerivedIds = Record<string, string>;

export interface JournalRecord {
  /** `journalKey(...)`: SHA-256 hex of (environmentId, destination, caller, operationId). */
  key: string;
  operationId: string;
  action: string;
  /** `hashInput(action, input)`: SHA-256 hex of the canonical JSON of `[action, input]`. */
  inputHash: string;
  environmentId: string;
  destination: string;
  /** Recorded when the record moves to `uncertain`, before anything is sent. */
  derivedIds: DerivedIds | null;
  state: JournalState;
  /** Epoch milliseconds from the injected clock. */
  createdAt: number;
  updatedAt: number;
  /** When the record became `completed` or `refused`; retention counts from here. */
  settledAt: number | null;
  /** Set when `settle()` (reconciliation) decided the outcome. */
  reconciledAt: number | null;
  receipt: JournalReceipt | null;
  error: JournalError | null;
  /** Only while `uncertain` (records written before it existed have none): what was sent. */
  command?: JournalCommand;
  /**
   * `recordChecksum` of the other fields, kept on disk and in memory; never handed to callers
   * (`copyRecord` drops it). Journals written before version 2 have none until migrated.
   */
  checksum?: string;
}

/** The outcome reconciliation found for an `uncertain` record. */
export type SettleOutcome =
  | { state: "completed"; receipt: JournalReceipt }
  | { state: "refused"; error: JournalError };

export interface ReserveRequest {
  environmentId: string;
  /** `t3://<environmentId>` for T3 environments. */
  destination: string;
  /** The stable caller channel identity (never a boot id). */
  caller: string;
  operationId: string;
  action: string;
  /** The parsed input. Only its hash is kept. */
  input: unknown;
}

export type ReserveResult =
  /** This call owns the operation: it, and only it, may send. */
  | { kind: "reserved"; record: JournalRecord }
  /** The operation exists with the same input: replay `record`, never resend. */
  | { kind: "existing"; record: JournalRecord };

export interface JournalFilter {
  states?: readonly JournalState[];
  environmentId?: string;
  action?: string;
  operationId?: string;
  /** Only records updated at or after this epoch-ms instant. */
  updatedSince?: number;
  /** At most this many records (oldest first). */
  limit?: number;
}

export interface JournalStats {
  /** Every record kept (active + sealed). */
  retained: number;
  /** Records in the active segment (rewritten on every mutation). */
  active: number;
  /** `preparing` + `uncertain` records. */
  open: number;
  /** Sealed, read-only segment files. */
  segments: number;
}
