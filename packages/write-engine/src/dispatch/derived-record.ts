/**
 * What the journal keeps in `derivedIds` before the send: every id that goes to T3 (all derived
 * from the operation key) plus two hints that are not sent but let reconciliation find the effect
 * later, even after a restart (the journal never stores the input itself).
 */
import type { DerivedIds } from "../actions/index.js";

/** JSON array of the existing threads the write touches (where its events land). */
export const HINT_THREADS = "hint.threads";
/** The shell `snapshotSequence` read just before the send: the effect's events come after it. */
export const HINT_AFTER_SEQUENCE = "hint.afterSequence";
/** The one existing project a project write names (a delete is observed by its absence). */
export const HINT_PROJECT = "hint.projectId";

export function derivedRecord(
  ids: DerivedIds,
  threadIds: readonly string[],
  afterSequence: number,
  projectIds: readonly string[] = [],
): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of Object.entries(ids)) {
    if (typeof value === "string" && value.length > 0) record[name] = value;
  }
  if (threadIds.length > 0) record[HINT_THREADS] = JSON.stringify(threadIds);
  record[HINT_AFTER_SEQUENCE] = String(afterSequence);
  const [projectId, ...others] = projectIds;
  if (projectId !== undefined && others.length === 0) record[HINT_PROJECT] = projectId;
  return record;
}

/** The ids that were (or will be) sent, without the hints: what a caller may show. */
export function sentIds(record: Readonly<Record<string, string>> | null): Record<string, string> {
  const ids: Record<string, string> = {};
  for (const [name, value] of Object.entries(record ?? {})) {
    if (!name.startsWith("hint.")) ids[name] = value;
  }
  return ids;
}

export function hintThreads(record: Readonly<Record<string, string>>): string[] {
  const raw = record[HINT_THREADS];
  if (raw === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === "string") : [];
  } catch {
    return [];
  }
}

export function hintAfterSequence(record: Readonly<Record<string, string>>): number | undefined {
  const value = Number(record[HINT_AFTER_SEQUENCE]);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}
