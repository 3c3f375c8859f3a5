import type { Description } from '../../core/types/index.js';
import { quantileSorted } from './quantile.js';
import { assertFinite } from './validate.js';

/** Summary of a sample. Null for an empty sample, so no caller prints a mean of nothing. */
export function describe(values: readonly number[]): Description | null {
  assertFinite('values', values);
  const n = values.length;
  if (n === 0) return null;
  const sorted = Float64Array.from(values).sort();
  const mean = values.reduce((s, v) => s + v, 0) / n;
  // Two-pass variance: subtracting the mean first avoids the cancellation of Σx² − n·mean².
  const ss = values.reduce((s, v) => s + (v - mean) * (v - mean), 0);
  return {
    n,
    mean,
    median: quantileSorted(sorted, 0.5),
    sd: n > 1 ? Math.sqrt(ss / (n - 1)) : null,
    p95: quantileSorted(sorted, 0.95),
    min: sorted[0] as number,
    max: sorted[n - 1] as number,
  };
}
