/**
 * Sample quantile by linear interpolation between order statistics: Hyndman & Fan type 7, the
 * default of R's quantile() and NumPy's percentile(), so a reader can reproduce any reported
 * percentile with the tool they already have. `sorted` must be ascending and non-empty.
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) throw new RangeError('quantile of an empty sample');
  if (!(q >= 0 && q <= 1)) throw new RangeError(`q must lie in [0, 1], got ${q}`);
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (h - lo) * (b - a);
}
