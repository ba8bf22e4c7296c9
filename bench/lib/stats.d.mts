// Types of bench/lib/stats.mjs for the tests that import it.
export function percentile(samples: readonly number[], p: number): number;
export function summarize(samples: readonly number[]): {
  count: number;
  p50: number;
  p99: number;
  max: number;
};
export function tailLabel(count: number): string;
export function round(value: number, digits?: number): number;
export function pairedChange(
  baseSamples: readonly number[],
  ourSamples: readonly number[],
): { samples: number; baseP50Ms: number; thisP50Ms: number; changePercent: number };
