/**
 * Time is injected everywhere so that tests control it and never sleep.
 * `now()` is wall-clock milliseconds since the epoch; `monotonic()` never goes backwards and is the
 * one to measure durations and deadlines with.
 */
export interface Clock {
  now(): number;
  monotonic(): number;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
};
