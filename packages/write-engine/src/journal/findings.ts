/**
 * What a check of the journal finds wrong with one file, and what that file took with it. Shared
 * by the journal's own check (inspect.ts) and its witness's (witness.ts), which import it, not
 * each other.
 */

/** What a damaged file took with it, as far as the journal can tell. */
export interface LostRange {
  /** Records lost; null when nobody can count them (the file that knew is gone). */
  records: number | null;
  /** Journal keys of the lost records that can be named (the manifest lists each segment's keys). */
  keys: string[];
  /** operationIds read from damaged records (best effort: the record itself may be what changed). */
  operationIds: string[];
  /** The operationIds of the oldest and newest lost record, where known (a lost segment's range). */
  firstOperationId: string | null;
  lastOperationId: string | null;
  /** When the oldest lost record was created / the newest settled, where known (epoch ms). */
  createdFrom: number | null;
  settledTo: number | null;
  /** false: some lost records cannot be named, so no unknown operationId can be proven new. */
  known: boolean;
}

/** `rolled_back`: an older copy of a file that only moves forward (ADR 0006 §14). */
export type FindingProblem =
  | "missing"
  | "truncated"
  | "altered"
  | "record_altered"
  | "foreign"
  | "rolled_back";

export interface JournalFinding {
  /** Relative to the state directory: `journal/segment-00000002.json`, `journal-identity.json`. */
  file: string;
  problem: FindingProblem;
  /** One sentence for the operator. */
  detail: string;
  lost: LostRange;
}
