import { type NowInput, parseInstant, resolveNow } from "./time.js";
import type { ShellThreadInput } from "./types.js";

/**
 * The "Woke" marker of T3's sidebar: the thread woke from a
 * snooze and nobody has acknowledged it. T3 stores no flag; it derives it from shell fields and the
 * clock, and so does this.
 */
export interface WokeMarker {
  /** `null`: the server does not send the fields needed to decide (older T3). */
  woke: boolean | null;
  /** The wake instant (ISO); null when the thread never snoozed or is still snoozed. */
  wokeAt: string | null;
}

function hasRuntime(thread: ShellThreadInput): boolean {
  return Boolean(thread.latestRunId) || Boolean(thread.activeProviderThreadId);
}

/** Strictly after, on parsed instants (an unparsable side is never "after"). */
function isAfter(later: unknown, earlier: unknown): boolean {
  const a = parseInstant(later);
  const b = parseInstant(earlier);
  return a !== null && b !== null && a > b;
}

/** The latest run's completion time when it completed after the snooze began, else null. */
function completedAfterSnooze(thread: ShellThreadInput): string | null {
  // "idle counts as completed"; a null snoozedAt never proves the completion came after the snooze.
  const completedStatus = thread.status === "completed" || thread.status === "idle";
  if (!completedStatus || !thread.latestRunId || !thread.snoozedAt) return null;
  // Older rows lack `latestRunCompletedAt`; for a finished run the row's `updatedAt` stands in.
  const completedAt = thread.latestRunCompletedAt || thread.updatedAt || null;
  return completedAt !== null && isAfter(completedAt, thread.snoozedAt) ? completedAt : null;
}

/** The thread raised its hand while snoozed: a non-auth request, a fresh failure or a later completion. */
function raisedHand(thread: ShellThreadInput): boolean {
  const request = thread.pendingRuntimeRequest;
  if (request && request.kind !== "auth_refresh") return true;
  const freshFailure =
    hasRuntime(thread) &&
    !thread.activityRunStatus &&
    thread.status === "failed" &&
    (thread.snoozedAt == null || isAfter(thread.updatedAt, thread.snoozedAt));
  if (freshFailure) return true;
  return completedAfterSnooze(thread) !== null;
}

function normalized(value: string | null | undefined): string | null {
  const ms = parseInstant(value);
  return ms === null ? null : new Date(ms).toISOString();
}

/** The wake instant (normalized ISO), or null: never snoozed, still snoozed, or unparsable. */
function wokeAtOf(thread: ShellThreadInput, nowMs: number): string | null {
  const snoozedUntilMs = parseInstant(thread.snoozedUntil);
  if (snoozedUntilMs === null) return null;
  if (raisedHand(thread)) {
    const completedAt = completedAfterSnooze(thread);
    if (completedAt !== null) return normalized(completedAt);
    return normalized((hasRuntime(thread) ? thread.updatedAt : null) ?? thread.snoozedAt);
  }
  return snoozedUntilMs <= nowMs ? normalized(thread.snoozedUntil) : null;
}

/**
 * The Woke marker, evaluated at one instant.
 *
 * A field that is ABSENT (`undefined`) means the server does not send it; a field sent as `null`
 * means "empty". So `lastVisitedAt: null` (never visited) leaves a woke thread woke, while a row
 * without `lastVisitedAt` at all gives `woke: null` (T3 would fall back to a browser watermark the
 * connector cannot see).
 */
export function wokeMarker(thread: ShellThreadInput, now: NowInput): WokeMarker {
  if (thread.snoozedUntil === undefined) return { woke: null, wokeAt: null };
  const nowMs = resolveNow(now);
  const wokeAt = wokeAtOf(thread, nowMs);
  if (wokeAt === null || thread.settledOverride === "settled") return { woke: false, wokeAt };
  if (thread.lastVisitedAt === undefined) return { woke: null, wokeAt };
  const visitedMs = parseInstant(thread.lastVisitedAt);
  const wokeMs = Date.parse(wokeAt);
  return { woke: visitedMs === null || visitedMs < wokeMs, wokeAt };
}

/**
 * Still snoozed: the snooze time is in the future and the thread has not woken early
 * (T3's "effectively snoozed").
 */
export function isSnoozed(thread: ShellThreadInput, now: NowInput): boolean {
  const snoozedUntilMs = parseInstant(thread.snoozedUntil);
  if (snoozedUntilMs === null) return false;
  const nowMs = resolveNow(now);
  return snoozedUntilMs > nowMs && wokeAtOf(thread, nowMs) === null;
}
