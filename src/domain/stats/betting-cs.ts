import { assertConfidence } from './validate.js';

/** A confidence sequence's interval after `t` observations, valid at every t at once. */
export interface ConfidenceSequence {
  /** Mean of the observations; null before the first. */
  mean: number | null;
  low: number;
  high: number;
  t: number;
}

export interface BettingOptions {
  confidence?: number;
  /** Candidate means tested: the grid 0, 1/g, …, 1. Finer is tighter and slower (O(g·t)). */
  grid?: number;
}

const DEFAULT_GRID = 1000;
/** Caps every bet at half the capital a candidate mean could lose (the paper's c = 1/2). */
const MAX_BET_FRACTION = 0.5;

/**
 * Confidence sequence for the mean of observations in [0, 1] by betting: the hedged-capital CS with
 * predictable plug-in bets of Waudby-Smith & Ramdas 2024, "Estimating means of bounded random
 * variables by betting", JRSS-B 86(1), Theorem 3 and Remark 1 (eq. 26–27).
 *
 * For each candidate mean m, two gamblers bet that the mean is above and below m; their capital
 * K⁺ = Π(1 + λᵢ⁺(xᵢ − m)) and K⁻ = Π(1 − λᵢ⁻(xᵢ − m)) are nonnegative martingales with mean 1 when m
 * is the true mean, because each bet λᵢ is fixed from x₁…xᵢ₋₁ before xᵢ is seen. By Ville's inequality
 * the hedged capital max(K⁺, K⁻)/2 reaches 1/α with probability at most α over all t, so the set of m
 * never rejected is a (1 − α) confidence sequence: its coverage holds at a time the run chose by
 * looking at the data, which is what lets an adaptive run stop as soon as the interval is narrow.
 * The interval returned is the running intersection (a candidate once rejected stays rejected).
 *
 * Crucible feeds it one observation per round: the share of tasks an agent passed when every task
 * was tried once more. Each round's share has the agent's task-weighted pass rate as its mean, so
 * the sequence covers the same quantity as the fixed run's pass rate.
 */
export function bettingConfidenceSequence(observations: readonly number[], opts: BettingOptions = {}): ConfidenceSequence {
  const confidence = opts.confidence ?? 0.95;
  const grid = opts.grid ?? DEFAULT_GRID;
  assertConfidence(confidence);
  if (!Number.isInteger(grid) || grid < 2) throw new RangeError(`grid must be an integer ≥ 2, got ${grid}`);
  for (const x of observations) {
    if (!(x >= 0 && x <= 1)) throw new RangeError(`observations must lie in [0, 1], got ${x}`);
  }
  const t = observations.length;
  if (t === 0) return { mean: null, low: 0, high: 1, t };
  const threshold = 1 / (1 - confidence);
  const lambdas = plugInBets(observations, 1 - confidence);
  const logThreshold = Math.log(threshold * 2); // hedged: θ = 1/2 on each side

  let low = 1;
  let high = 0;
  for (let g = 0; g <= grid; g++) {
    const m = g / grid;
    if (!rejectedEver(observations, lambdas, m, logThreshold)) {
      low = Math.min(low, m);
      high = Math.max(high, m);
    }
  }
  const mean = observations.reduce((s, x) => s + x, 0) / t;
  if (low > high) return { mean, low: mean, high: mean, t };
  // Widen by one grid step so the interval contains every mean between grid points it did not reject.
  return { mean, low: Math.max(0, low - 1 / grid), high: Math.min(1, high + 1 / grid), t };
}

/** The predictable plug-in bets λ₁…λ_t (WSR eq. 26): each uses only the observations before it. */
function plugInBets(xs: readonly number[], alpha: number): number[] {
  const out: number[] = [];
  let sum = 0;
  let squares = 0.25; // the paper's prior σ̂₀² = 1/4 with weight one
  let meanBefore = 0.5;
  let varianceBefore = 0.25;
  xs.forEach((x, i) => {
    const t = i + 1;
    out.push(Math.sqrt((2 * Math.log(2 / alpha)) / (varianceBefore * t * Math.log(t + 1))));
    sum += x;
    squares += (x - meanBefore) ** 2;
    meanBefore = (0.5 + sum) / (t + 1);
    varianceBefore = squares / (t + 1);
  });
  return out;
}

function rejectedEver(xs: readonly number[], lambdas: readonly number[], m: number, logThreshold: number): boolean {
  let logUp = 0;
  let logDown = 0;
  const capUp = m > 0 ? MAX_BET_FRACTION / m : Infinity;
  const capDown = m < 1 ? MAX_BET_FRACTION / (1 - m) : Infinity;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i] as number;
    const lambda = lambdas[i] as number;
    const up = 1 + Math.min(lambda, capUp) * (x - m);
    const down = 1 - Math.min(lambda, capDown) * (x - m);
    // A factor of 0 means the observation is impossible under m (x = 0 with m = 1, say).
    logUp += up > 0 ? Math.log(up) : -Infinity;
    logDown += down > 0 ? Math.log(down) : -Infinity;
    if (Math.max(logUp, logDown) >= logThreshold) return true;
  }
  return false;
}
