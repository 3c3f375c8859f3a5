/**
 * Seeded pseudo-random numbers, so a bootstrap interval printed today can be reproduced exactly
 * from the run's seed tomorrow. mulberry32: 32-bit state, passes the usual smoke tests, and is
 * plenty for drawing resampling indices (we need reproducibility, not cryptographic quality).
 */

export type Random = () => number;

/** Returns a generator of uniform floats in [0, 1). Any finite seed works; it is folded to 32 bits. */
export function mulberry32(seed: number): Random {
  if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number, got ${seed}`);
  let state = Math.trunc(seed) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Uniform integer in [0, n). */
export function randomIndex(random: Random, n: number): number {
  return Math.floor(random() * n);
}
