/** How long and how often an event is retried before it becomes a dead letter. */
export interface DeliveryPolicy {
  /** First retry delay ceiling; it doubles per failed attempt (default 1 s). */
  baseDelayMs: number;
  /** Ceiling of any one delay (default 5 min). */
  maxDelayMs: number;
  /** Attempts in all, the first included (default 12: about 40 min of retries at the defaults). */
  maxAttempts: number;
  /** An event older than this is not retried again (default 24 h). */
  maxAgeMs: number;
  /** One POST's deadline (default 10 s). */
  requestTimeoutMs: number;
  /** Delivered records kept to recognise an event derived again (default 7 days). */
  retentionMs: number;
  /**
   * How long an event saying something waits on the person is held before its first attempt;
   * when what it announced ends within it, neither event is sent (grace.ts; default 10 s, 0: off).
   */
  graceMs: number;
}

export const DEFAULT_DELIVERY_POLICY: Readonly<DeliveryPolicy> = Object.freeze({
  baseDelayMs: 1_000,
  maxDelayMs: 5 * 60_000,
  maxAttempts: 12,
  maxAgeMs: 24 * 60 * 60_000,
  requestTimeoutMs: 10_000,
  retentionMs: 7 * 24 * 60 * 60_000,
  graceMs: 10_000,
});

/**
 * Exponential backoff with full jitter: after the n-th failed attempt the next one waits a uniform
 * random time in [0, min(maxDelay, base * 2^(n-1))). Full jitter spreads the retries of many
 * events that failed together (a receiver that was down) instead of sending them in waves.
 * `random` returns [0, 1) and is injected so tests know the delay.
 */
export function retryDelayMs(failedAttempts: number, policy: DeliveryPolicy, random: () => number): number {
  const exponent = Math.max(0, failedAttempts - 1);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(exponent, 30));
  return Math.floor(random() * ceiling);
}

/** Why an event that just failed is not retried again, or null to retry it. */
export function exhaustion(
  failedAttempts: number,
  ageMs: number,
  policy: DeliveryPolicy,
): "max_attempts" | "max_age" | null {
  if (failedAttempts >= policy.maxAttempts) return "max_attempts";
  if (ageMs >= policy.maxAgeMs) return "max_age";
  return null;
}
