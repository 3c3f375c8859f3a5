/**
 * The exact sign-flip distribution of paired per-task rate differences, by dynamic programming
 * instead of enumerating 2^m assignments. Every rate is successes / n, so with L the least common
 * multiple of the trial counts each difference is an integer D_i on the 1/L grid, and a sign
 * assignment s is summarised by (Σ s_i D_i, number of + signs): at most (2ΣD + 1)(m + 1) states,
 * which is what the test at any shift δ needs (Σ s_i (d_i − δ) = Σ s_i d_i − δ Σ s_i).
 */

/** One shared task: both agents' counts, n > 0 on each side. */
export interface PairedCounts {
  successesA: number;
  nA: number;
  successesB: number;
  nB: number;
}

/** Distinct (Σ s_i d_i, Σ s_i) pairs over all sign assignments, each with its probability under the null. */
export interface WeightedFlips {
  signedSums: Float64Array;
  signSums: Float64Array;
  weights: Float64Array;
}

/**
 * DP work (state updates) allowed before the caller falls back to enumeration or sampling; about
 * 20 ms of arithmetic. Covers tens of tasks at any common trial count and hundreds at a few trials.
 */
const MAX_WORK = 20_000_000;
/** A grid finer than this means unusual trial counts; the state space would not fit the budget anyway. */
const MAX_GRID = 100_000;

/** The exact distribution, or null when the grid or the state space is too large for the budget. */
export function gridFlips(tasks: readonly PairedCounts[]): WeightedFlips | null {
  const m = tasks.length;
  let grid = 1;
  for (const t of tasks) {
    grid = lcm(lcm(grid, t.nA), t.nB);
    if (grid > MAX_GRID) return null;
  }
  const steps = tasks.map((t) => t.successesA * (grid / t.nA) - t.successesB * (grid / t.nB));
  const reach = steps.reduce((s, d) => s + Math.abs(d), 0);
  const width = 2 * reach + 1;
  // Σ over tasks of the states live before each: (k + 1) sign counts × (2 Σ|D| so far + 1) sums.
  let work = 0;
  let span = 0;
  steps.forEach((d, i) => {
    work += (i + 1) * (2 * span + 1);
    span += Math.abs(d);
  });
  if (work > MAX_WORK) return null;

  // prob[k * width + reach + S]: probability, under the null's fair signs, that k of the tasks so
  // far carry + and Σ s_i D_i = S. Halving each step keeps values ≥ 2^-m (the budget keeps m small).
  let prob = new Float64Array((m + 1) * width);
  let next = new Float64Array((m + 1) * width);
  prob[reach] = 1;
  span = 0;
  steps.forEach((d, i) => {
    // Clearing only the region this step writes is enough: whatever an earlier step left in `next`
    // lies inside it (fewer tasks, smaller sums), and beyond it the array was never written.
    const reachNext = span + Math.abs(d);
    for (let k = 0; k <= i + 1; k++) next.fill(0, k * width + reach - reachNext, k * width + reach + reachNext + 1);
    for (let k = 0; k <= i; k++) {
      const row = k * width + reach;
      for (let s = row - span; s <= row + span; s++) {
        const p = prob[s] as number;
        if (p === 0) continue;
        next[s + width + d] = (next[s + width + d] as number) + p / 2;
        next[s - d] = (next[s - d] as number) + p / 2;
      }
    }
    span += Math.abs(d);
    [prob, next] = [next, prob];
  });
  return collect(prob, m, width, reach, grid);
}

/** The non-empty states as arrays, sums back on the rate scale. */
function collect(prob: Float64Array, m: number, width: number, reach: number, grid: number): WeightedFlips {
  let count = 0;
  for (const p of prob) if (p !== 0) count++;
  const signedSums = new Float64Array(count);
  const signSums = new Float64Array(count);
  const weights = new Float64Array(count);
  let j = 0;
  for (let k = 0; k <= m; k++) {
    for (let s = -reach; s <= reach; s++) {
      const p = prob[k * width + reach + s] as number;
      if (p === 0) continue;
      signedSums[j] = s / grid;
      signSums[j] = 2 * k - m;
      weights[j] = p;
      j++;
    }
  }
  return { signedSums, signSums, weights };
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

function lcm(a: number, b: number): number {
  return (a / gcd(a, b)) * b;
}
