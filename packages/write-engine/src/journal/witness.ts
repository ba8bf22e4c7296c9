import type { JournalFinding } from "./findings.js";
import type { AuditAnchor } from "./manifest.js";

/**
 * What files outside the journal say about it (ADR 0006 §14–§15). The gate's audit log is the
 * witness: its hash-chained lines record the journal's generation after every write, so a journal
 * put back from an older copy (all of it, marker included) is still noticed; it proves a journal
 * existed when the journal and its marker are gone together; and its own chain is checked against
 * the anchor the marker keeps. The journal module does not read the audit log itself (the gate
 * owns it): the gate hands a witness to `openJournal`, `verifyJournal`, `recoverJournal` and
 * `liftUnknownLoss`, which consult it while holding the journal lock.
 */
export interface WitnessReport {
  /** Damage found in the witness's own files (an edited, cut or deleted audit log), named. */
  findings: JournalFinding[];
  /** Those damaged files present on disk, relative to the state directory (recovery moves them aside). */
  damagedFiles: string[];
  /** Files that prove a journal existed here (an audit log with lines, enrolled passkeys). */
  evidence: string[];
  /** The highest active-segment generation the witness recorded, and where. */
  generation: { value: number; file: string } | null;
  /** When the witness's intact record begins (epoch ms; the first audit line), null when empty. */
  coversFrom: number | null;
}

export interface JournalWitness {
  /** Read and check the witness; `anchor` is what the journal's marker recorded of it. */
  check(anchor: AuditAnchor | null): Promise<WitnessReport>;
}

export const NO_WITNESS: JournalWitness = {
  check: async () => ({ findings: [], damagedFiles: [], evidence: [], generation: null, coversFrom: null }),
};
