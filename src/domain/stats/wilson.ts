import type { Interval } from '../../core/types/index.js';
import { twoSidedZ } from './normal.js';
import { assertConfidence, assertSuccesses } from './validate.js';

/**
 * Wilson score interval for a binomial proportion. Chosen over the normal (Wald) interval because
 * it stays inside [0, 1] and keeps near-nominal coverage at the small n and extreme rates typical
 * of a handful of trials per task (0/3 and 3/3 are common).
 *
 * Returns null for n = 0: there is no rate to report, and null makes every caller decide what to
 * print instead of silently showing NaN.
 */
export function wilson(successes: number, n: number, confidence = 0.95): Interval | null {
  assertSuccesses(successes, n);
  assertConfidence(confidence);
  if (n === 0) return null;
  const z = twoSidedZ(confidence);
  const p = successes / n;
  const z2n = (z * z) / n;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n))) / (1 + z2n);
  // At 0 or n successes the bound is exactly 0 or 1; pin it so rounding cannot leave -1e-17.
  const low = successes === 0 ? 0 : Math.max(0, centre - half);
  const high = successes === n ? 1 : Math.min(1, centre + half);
  return { rate: p, low, high, n };
}
