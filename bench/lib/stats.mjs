// The one place the benchmarks turn samples into figures. Every bench imports its percentiles
// from here, so a p99 means the same thing in every report line.

/**
 * Nearest-rank percentile: the smallest sample such that at least `p`% of the samples are at or
 * below it (no interpolation, so the figure is always a time that was really measured).
 * NaN for no samples.
 */
export function percentile(samples, p) {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

/** `{count, p50, p99, max}` of the samples. */
export function summarize(samples) {
  return {
    count: samples.length,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    max: samples.length === 0 ? Number.NaN : Math.max(...samples),
  };
}

/**
 * The label of the highest percentile the sample count supports honestly: a p99 needs ≥ 100
 * samples, otherwise the figure is the maximum and is named so ("max of 40").
 */
export function tailLabel(count) {
  return count >= 100 ? "p99" : `max of ${count}`;
}

export const round = (value, digits = 2) => Number(value.toFixed(digits));

/** Two builds' samples of one thing, paired: each p50 and the change from `base` to `ours`, in %. */
export function pairedChange(baseSamples, ourSamples) {
  const base = percentile(baseSamples, 50);
  const ours = percentile(ourSamples, 50);
  return {
    samples: ourSamples.length,
    baseP50Ms: round(base),
    thisP50Ms: round(ours),
    changePercent: round(((ours - base) / base) * 100),
  };
}
