import type { Clock } from "../clock.js";

/**
 * The instant a projection is computed at: epoch milliseconds, or a clock read ONCE per call so that
 * every thread of one answer is judged at the same instant.
 */
export type NowInput = number | Pick<Clock, "now">;

export function resolveNow(now: NowInput): number {
  return typeof now === "number" ? now : now.now();
}

/** Epoch milliseconds of an ISO timestamp, or null when it is missing or cannot be parsed. */
export function parseInstant(value: unknown): number | null {
  if (typeof value !== "string" || value.length === 0) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}
