import type { PairedComparison, PairedMethod, PairedVerdict } from '../types/index.js';
import { newcombeDifference } from './newcombe.js';
import { mulberry32 } from './prng.js';
import { assertConfidence, assertPositiveInteger, assertSuccesses } from './validate.js';

/** One agent's outcome on one task, harness errors already removed from `n`. */
export interface TaskOutcome {
  taskId: string;
  successes: number;
  n: number;
}

export interface PairedOptions {
  confidence?: number;
  /** Seeds the Monte Carlo sign flips; unused when the test is exact. */
  seed?: number;
  /** Up to this many shared tasks every sign assignment is enumerated (2^16 = 65 536). */
  exactMaxTasks?: number;
  /** Random sign assignments drawn when the task count exceeds `exactMaxTasks`. */
  iterations?: number;
  /**
   * Never report an interval narrower than Newcombe's on the pooled counts (default true). When
   * every shared task comes out the same for both agents, the sign-flip interval has zero width
   * although each task was tried only a few times; the floor keeps that noise in view.
   */
  newcombeFloor?: boolean;
}

const DEFAULT_EXACT_MAX_TASKS = 16;
const DEFAULT_ITERATIONS = 20_000;
const DEFAULT_SEED = 1;
/** Absorbs floating-point noise so exact ties count as "at least as extreme" (conservative). */
const TIE_TOLERANCE = 1e-9;
const BISECTION_STEPS = 40;

/**
 * Paired comparison of two agents over the tasks both were scored on.
 *
 * Unit of analysis: per shared task, d = rateA − rateB. Tasks are the independent units (trials of
 * one task share its difficulty), and pairing on the task removes task difficulty from the noise.
 *
 * Method: a sign-flip permutation test on the mean of d, exact (all 2^m sign assignments) for up to
 * 16 tasks and Monte Carlo beyond. Under "no difference" which agent is A on a task is arbitrary, so
 * each d is equally likely to carry either sign; the p-value is the share of sign assignments whose
 * |mean| is at least the observed one. Chosen over a paired bootstrap because runs usually have few
 * tasks, where the percentile bootstrap is badly over-confident (3 of 3 tasks won gives a bootstrap
 * interval of [1, 1], "separated", though a coin would do that 1 time in 4); the exact test keeps
 * its stated error rate at any m, needs no normality and copes with ties and all-equal differences.
 * A consequence worth knowing: with fewer than 6 tasks that differ, no outcome reaches p ≤ 0.05.
 *
 * Interval: the shifts δ not rejected when the test is applied to d − δ. For each sign assignment
 * the set of δ where it counts as extreme is an interval around the observed mean, so the p-value
 * falls monotonically away from the mean and bisection finds each end. Because the verdict is the
 * same test at δ = 0, the interval excludes 0 exactly when the verdict separates the agents.
 */
export function pairedComparison(a: readonly TaskOutcome[], b: readonly TaskOutcome[], opts: PairedOptions = {}): PairedComparison {
  const confidence = opts.confidence ?? 0.95;
  const exactMaxTasks = opts.exactMaxTasks ?? DEFAULT_EXACT_MAX_TASKS;
  const iterations = opts.iterations ?? DEFAULT_ITERATIONS;
  assertConfidence(confidence);
  assertPositiveInteger('iterations', iterations);
  if (!Number.isInteger(exactMaxTasks) || exactMaxTasks < 0 || exactMaxTasks > 24) {
    throw new RangeError(`exactMaxTasks must be an integer in [0, 24], got ${exactMaxTasks}`);
  }

  const diffs = sharedDifferences(a, b);
  const m = diffs.length;
  const exact = m <= exactMaxTasks;
  const method: PairedMethod = exact ? 'exact sign-flip' : 'monte-carlo sign-flip';
  if (m === 0) {
    return {
      verdict: 'not separated',
      diff: null,
      low: null,
      high: null,
      pValue: null,
      tasks: 0,
      method,
      confidence,
      note: 'no shared task with scored attempts for both agents',
    };
  }

  const alpha = 1 - confidence;
  const flips = exact ? enumerateFlips(diffs) : sampleFlips(diffs, iterations, opts.seed ?? DEFAULT_SEED);
  const total = diffs.reduce((s, d) => s + d, 0);
  const diff = total / m;
  const pAt = (delta: number): number => pValue(flips, total, m, delta);

  const p0 = pAt(0);
  const separated = p0 <= alpha;
  const verdict: PairedVerdict = !separated ? 'not separated' : diff > 0 ? 'A better' : 'B better';
  const low = pAt(-1) > alpha ? -1 : boundary(pAt, alpha, -1, diff);
  const high = pAt(1) > alpha ? 1 : boundary(pAt, alpha, 1, diff);

  const result: PairedComparison = { verdict, diff, low, high, pValue: p0, tasks: m, method, confidence };
  const note = cannotSeparateNote(diffs, alpha, confidence);
  if (note !== undefined) result.note = note;
  return opts.newcombeFloor === false ? result : floorByNewcombe(result, a, b, confidence);
}

/** Widens the interval to Newcombe's on the shared tasks' pooled counts; separates only if both do. */
function floorByNewcombe(result: PairedComparison, a: readonly TaskOutcome[], b: readonly TaskOutcome[], confidence: number): PairedComparison {
  if (result.low === null || result.high === null) return result;
  const onB = new Map(b.filter((o) => o.n > 0).map((o) => [o.taskId, o]));
  const pooledA = { successes: 0, n: 0 };
  const pooledB = { successes: 0, n: 0 };
  for (const oa of a) {
    const ob = onB.get(oa.taskId);
    if (!ob || oa.n === 0) continue;
    pooledA.successes += oa.successes;
    pooledA.n += oa.n;
    pooledB.successes += ob.successes;
    pooledB.n += ob.n;
  }
  const floor = newcombeDifference(pooledA, pooledB, confidence);
  if (floor === null || (floor.low >= result.low && floor.high <= result.high)) return result;
  const low = Math.min(result.low, floor.low);
  const high = Math.max(result.high, floor.high);
  const verdict = result.verdict !== 'not separated' && (low > 0 || high < 0) ? result.verdict : 'not separated';
  return { ...result, low, high, verdict, floor: 'newcombe' };
}

/** Per-task rate differences over tasks scored for both, in taskId order so sampling is stable. */
function sharedDifferences(a: readonly TaskOutcome[], b: readonly TaskOutcome[]): number[] {
  const rateA = ratesByTask(a, 'a');
  const rateB = ratesByTask(b, 'b');
  const shared = [...rateA.keys()].filter((id) => rateB.has(id)).sort();
  return shared.map((id) => (rateA.get(id) as number) - (rateB.get(id) as number));
}

function ratesByTask(outcomes: readonly TaskOutcome[], side: string): Map<string, number> {
  const rates = new Map<string, number>();
  const seen = new Set<string>();
  for (const o of outcomes) {
    assertSuccesses(o.successes, o.n);
    if (seen.has(o.taskId)) throw new RangeError(`task ${o.taskId} appears twice in ${side}`);
    seen.add(o.taskId);
    if (o.n > 0) rates.set(o.taskId, o.successes / o.n);
  }
  return rates;
}

/** For each sign assignment s: Σ s_i d_i and Σ s_i, enough to evaluate the test at any shift. */
interface Flips {
  signedSums: Float64Array;
  signSums: Float64Array;
}

function enumerateFlips(diffs: readonly number[]): Flips {
  const count = 2 ** diffs.length;
  const signedSums = new Float64Array(count);
  const signSums = new Float64Array(count);
  for (let mask = 0; mask < count; mask++) {
    let s = 0;
    let f = 0;
    diffs.forEach((d, i) => {
      const sign = mask & (1 << i) ? -1 : 1;
      s += sign * d;
      f += sign;
    });
    signedSums[mask] = s;
    signSums[mask] = f;
  }
  return { signedSums, signSums };
}

/** The observed assignment plus `iterations` random ones, so the p-value is never below 1/(B+1). */
function sampleFlips(diffs: readonly number[], iterations: number, seed: number): Flips {
  const random = mulberry32(seed);
  const signedSums = new Float64Array(iterations + 1);
  const signSums = new Float64Array(iterations + 1);
  signedSums[0] = diffs.reduce((s, d) => s + d, 0);
  signSums[0] = diffs.length;
  // One 32-bit draw supplies 32 signs: the same fair coin flips at a 32nd of the generator calls.
  for (let it = 1; it <= iterations; it++) {
    let s = 0;
    let f = 0;
    let bits = 0;
    for (let i = 0; i < diffs.length; i++) {
      if (i % 32 === 0) bits = Math.floor(random() * 4294967296);
      const sign = bits & 1 ? -1 : 1;
      bits >>>= 1;
      s += sign * (diffs[i] as number);
      f += sign;
    }
    signedSums[it] = s;
    signSums[it] = f;
  }
  return { signedSums, signSums };
}

/** Share of sign assignments at least as extreme as the observed one when testing mean(d) = delta. */
function pValue(flips: Flips, total: number, m: number, delta: number): number {
  const observed = Math.abs(total - delta * m) - TIE_TOLERANCE;
  const { signedSums, signSums } = flips;
  let extreme = 0;
  for (let j = 0; j < signedSums.length; j++) {
    if (Math.abs((signedSums[j] as number) - delta * (signSums[j] as number)) >= observed) extreme++;
  }
  return extreme / signedSums.length;
}

/** Bisects between a rejected shift and the (accepted) observed mean; returns the accepted end. */
function boundary(pAt: (delta: number) => number, alpha: number, rejected: number, accepted: number): number {
  let out = rejected;
  let inside = accepted;
  for (let step = 0; step < BISECTION_STEPS; step++) {
    const mid = (out + inside) / 2;
    if (mid === out || mid === inside) break;
    if (pAt(mid) > alpha) inside = mid;
    else out = mid;
  }
  return inside;
}

/** The smallest p-value an exact test can reach is 2 / 2^(tasks that differ); say so when that exceeds alpha. */
function cannotSeparateNote(diffs: readonly number[], alpha: number, confidence: number): string | undefined {
  const differing = diffs.filter((d) => Math.abs(d) > TIE_TOLERANCE).length;
  if (2 / 2 ** differing <= alpha) return undefined;
  const needed = Math.ceil(Math.log2(2 / alpha));
  const pct = Math.round(confidence * 1000) / 10;
  return `only ${differing} of ${diffs.length} shared tasks differ; a ${pct}% sign-flip test needs at least ${needed} to separate two agents`;
}
