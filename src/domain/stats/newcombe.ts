import { wilson } from './wilson.js';

export interface Counts {
  successes: number;
  n: number;
}

/**
 * Newcombe's hybrid score interval (1998, method 10) for the difference of two proportions
 * pA − pB, built from each side's Wilson interval. It ignores pairing, so it is wider than a
 * paired interval when tasks agree; it is used as a floor under paired intervals that collapse to
 * zero width when every task comes out the same (all-pass vs all-fail), where the sampling noise
 * of the few trials per task is real but invisible to a test on per-task differences.
 * Null when either side has no trials.
 */
export function newcombeDifference(a: Counts, b: Counts, confidence = 0.95): { diff: number; low: number; high: number } | null {
  const wa = wilson(a.successes, a.n, confidence);
  const wb = wilson(b.successes, b.n, confidence);
  if (wa === null || wb === null) return null;
  const diff = wa.rate - wb.rate;
  const low = diff - Math.sqrt((wa.rate - wa.low) ** 2 + (wb.high - wb.rate) ** 2);
  const high = diff + Math.sqrt((wa.high - wa.rate) ** 2 + (wb.rate - wb.low) ** 2);
  return { diff, low: Math.max(-1, low), high: Math.min(1, high) };
}
