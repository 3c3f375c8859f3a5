import type { PairedComparison, PairedMethod, PairedVerdict } from '../../core/types/index.js';
import { newcombeDifference } from './newcombe.js';
import { mulberry32 } from './prng.js';
import { gridFlips, type PairedCounts } from './sign-flip-grid.js';
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
  /**
   * Up to this many shared tasks the test is exact (default: any number): from the sign-flip
   * distribution on the rates' common grid when that fits the computation budget, else by
   * enumerating every sign assignment up to 16 tasks. Beyond either, Monte Carlo.
   */
  exactMaxTasks?: number;
  /** Random sign assignments drawn when the test is not exact. */
  iterations?: number;
  /**
   * Never report an interval narrower than Newcombe's on the pooled counts (default true). When
   * every shared task comes out the same for both agents, the sign-flip interval has zero width
   * although each task was tried only a few times; the floor keeps that noise in view.
   */
  newcombeFloor?: boolean;
}

/** 2^16 = 65 536 assignments: beyond this many tasks enumerating them costs more than sampling. */
const ENUMERATE_MAX_TASKS = 16;
const DEFAULT_ITERATIONS = 20_000;
const DEFAULT_SEED = 1;
/** Absorbs floating-point noise so exact ties count as "at least as extreme" (conservative). */
const TIE_TOLERANCE = 1e-9;

/**
 * Paired comparison of two agents over the tasks both were scored on.
 *
 * Unit of analysis: per shared task, d = rateA − rateB. Tasks are the independent units (trials of
 * one task share its difficulty), and pairing on the task removes task difficulty from the noise.
 *
 * Method: a sign-flip permutation test on the mean of d, exact: its distribution over all 2^m sign
 * assignments is computed on the 1/lcm(trials) grid the rates lie on (sign-flip-grid.ts), or the
 * assignments enumerated up to 16 tasks when that grid is too fine; Monte Carlo only when neither
 * fits. Under "no difference" which agent is A on a task is arbitrary, so
 * each d is equally likely to carry either sign; the p-value is the share of sign assignments whose
 * |mean| is at least the observed one. Chosen over a paired bootstrap because runs usually have few
 * tasks, where the percentile bootstrap is badly over-confident (3 of 3 tasks won gives a bootstrap
 * interval of [1, 1], "separated", though a coin would do that 1 time in 4); the exact test keeps
 * its stated error rate at any m, needs no normality and copes with ties and all-equal differences.
 * A consequence worth knowing: with fewer than 6 tasks that differ, no outcome reaches p ≤ 0.05.
 *
 * Interval: the shifts δ not rejected when the test is applied to d − δ. For each sign assignment
 * the set of δ where it counts as extreme is an interval around the observed mean, so the p-value
 * falls monotonically away from the mean and each end is one of those intervals' ends, found by
 * sorting them (invertedInterval). Because the verdict is the
 * same test at δ = 0, the interval excludes 0 exactly when the verdict separates the agents.
 */
export function pairedComparison(a: readonly TaskOutcome[], b: readonly TaskOutcome[], opts: PairedOptions = {}): PairedComparison {
  const confidence = opts.confidence ?? 0.95;
  const exactMaxTasks = opts.exactMaxTasks ?? Number.POSITIVE_INFINITY;
  const iterations = opts.iterations ?? DEFAULT_ITERATIONS;
  assertConfidence(confidence);
  assertPositiveInteger('iterations', iterations);
  if (!(Number.isInteger(exactMaxTasks) || exactMaxTasks === Number.POSITIVE_INFINITY) || exactMaxTasks < 0) {
    throw new RangeError(`exactMaxTasks must be a non-negative integer, got ${exactMaxTasks}`);
  }

  const shared = sharedCounts(a, b);
  const diffs = shared.map((t) => t.successesA / t.nA - t.successesB / t.nB);
  const m = diffs.length;
  const flips = m > exactMaxTasks ? null : (gridFlips(shared) ?? (m <= ENUMERATE_MAX_TASKS ? enumerateFlips(diffs) : null));
  const method: PairedMethod = flips !== null ? 'exact sign-flip' : 'monte-carlo sign-flip';
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
  const distribution = flips ?? sampleFlips(diffs, iterations, opts.seed ?? DEFAULT_SEED);
  const total = diffs.reduce((s, d) => s + d, 0);
  const diff = total / m;
  const p0 = pValue(distribution, total, m, 0);
  const separated = p0 <= alpha;
  const verdict: PairedVerdict = !separated ? 'not separated' : diff > 0 ? 'A better' : 'B better';
  const { low, high } = invertedInterval(distribution, total, m, alpha);

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

/** Both agents' counts on each task scored for both, in taskId order so sampling is stable. */
function sharedCounts(a: readonly TaskOutcome[], b: readonly TaskOutcome[]): PairedCounts[] {
  const onA = scoredByTask(a, 'a');
  const onB = scoredByTask(b, 'b');
  const shared = [...onA.keys()].filter((id) => onB.has(id)).sort();
  return shared.map((id) => {
    const oa = onA.get(id) as TaskOutcome;
    const ob = onB.get(id) as TaskOutcome;
    return { successesA: oa.successes, nA: oa.n, successesB: ob.successes, nB: ob.n };
  });
}

function scoredByTask(outcomes: readonly TaskOutcome[], side: string): Map<string, TaskOutcome> {
  const scored = new Map<string, TaskOutcome>();
  const seen = new Set<string>();
  for (const o of outcomes) {
    assertSuccesses(o.successes, o.n);
    if (seen.has(o.taskId)) throw new RangeError(`task ${o.taskId} appears twice in ${side}`);
    seen.add(o.taskId);
    if (o.n > 0) scored.set(o.taskId, o);
  }
  return scored;
}

/**
 * Sign assignments as Σ s_i d_i and Σ s_i, enough to evaluate the test at any shift; `weights`
 * gives each entry's probability when entries are distinct states, null when each entry is one
 * equally likely assignment.
 */
interface Flips {
  signedSums: Float64Array;
  signSums: Float64Array;
  weights: Float64Array | null;
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
  return { signedSums, signSums, weights: null };
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
  return { signedSums, signSums, weights: null };
}

/** Share of sign assignments at least as extreme as the observed one when testing mean(d) = delta. */
function pValue(flips: Flips, total: number, m: number, delta: number): number {
  const observed = Math.abs(total - delta * m) - TIE_TOLERANCE;
  const { signedSums, signSums, weights } = flips;
  let extreme = 0;
  for (let j = 0; j < signedSums.length; j++) {
    if (Math.abs((signedSums[j] as number) - delta * (signSums[j] as number)) >= observed) extreme += weights === null ? 1 : (weights[j] as number);
  }
  return weights === null ? extreme / signedSums.length : Math.min(1, extreme);
}

/**
 * The shifts the test does not reject, within [−1, 1], computed exactly. At δ an entry is extreme
 * when |S − δF| ≥ |T − δm| − tol (S = Σ s_i d_i, F = Σ s_i, T the observed sum). Because |F| ≤ m the
 * right side grows at least as fast as the left away from T/m, so the entry is extreme on an
 * interval [lo, hi] around T/m whose ends are roots of the two linear pieces. p(δ) is the weight of
 * the entries whose interval holds δ; the accepted set ends where that weight, taken from the
 * outermost ends inwards, first exceeds alpha.
 */
function invertedInterval(flips: Flips, total: number, m: number, alpha: number): { low: number; high: number } {
  const { signedSums, signSums, weights } = flips;
  const count = signedSums.length;
  const lows = new Float64Array(count);
  const highs = new Float64Array(count);
  for (let j = 0; j < count; j++) {
    const s = signedSums[j] as number;
    const f = signSums[j] as number;
    highs[j] = Math.max(root(s + total + TIE_TOLERANCE, m + f), root(total - s + TIE_TOLERANCE, m - f));
    lows[j] = -Math.max(root(-(total - s - TIE_TOLERANCE), m - f), root(-(total + s - TIE_TOLERANCE), m + f));
  }
  const uniform = weights === null ? new Float64Array(count).fill(1 / count) : null;
  const mass = uniform ?? (weights as Float64Array);
  // Lows are taken from the smallest up: negated, the same search as for the highs from the largest down.
  for (let j = 0; j < count; j++) lows[j] = -(lows[j] as number);
  const low = -outermostEnd(lows, mass.slice(), alpha);
  const high = outermostEnd(highs, mass.slice(), alpha);
  return { low: Math.max(-1, low), high: Math.min(1, high) };
}

/**
 * The value v at which the weight of the keys ≥ v, taken from the largest down, first exceeds
 * alpha: a weighted selection (three-way quickselect on keys and weights together), linear on
 * average where sorting the entries would not be. Reorders both arrays.
 */
function outermostEnd(keys: Float64Array, weights: Float64Array, alpha: number): number {
  let from = 0;
  let to = keys.length;
  let above = 0;
  const swap = (i: number, j: number): void => {
    const key = keys[i] as number;
    keys[i] = keys[j] as number;
    keys[j] = key;
    const weight = weights[i] as number;
    weights[i] = weights[j] as number;
    weights[j] = weight;
  };
  while (to - from > 0) {
    const pivot = medianOfThree(keys[from] as number, keys[(from + to) >> 1] as number, keys[to - 1] as number);
    // [from, gt): keys > pivot; [gt, i): = pivot; [lt, to): < pivot.
    let gt = from;
    let i = from;
    let lt = to;
    while (i < lt) {
      const k = keys[i] as number;
      if (k > pivot) swap(i++, gt++);
      else if (k < pivot) swap(i, --lt);
      else i++;
    }
    let greater = 0;
    for (let j = from; j < gt; j++) greater += weights[j] as number;
    if (above + greater > alpha) {
      to = gt;
      continue;
    }
    let equal = 0;
    for (let j = gt; j < lt; j++) equal += weights[j] as number;
    if (above + greater + equal > alpha) return pivot;
    above += greater + equal;
    from = lt;
  }
  // Rounding left the total weight at or below alpha: the innermost end is the answer.
  let innermost = Number.POSITIVE_INFINITY;
  for (const k of keys) innermost = Math.min(innermost, k);
  return innermost;
}

function medianOfThree(a: number, b: number, c: number): number {
  return Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
}

/** The largest δ with δ · denominator ≤ numerator (denominator ≥ 0); unbounded when it is 0 and holds. */
function root(numerator: number, denominator: number): number {
  if (denominator === 0) return numerator >= 0 ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  return numerator / denominator;
}

/**
 * How many tasks on which two agents' results differ an exact two-sided sign-flip test needs
 * before it can separate them at `alpha` (its smallest p-value is 2 / 2^n): 6 at 0.05.
 */
export function tasksToSeparate(alpha = 0.05): number {
  return Math.ceil(Math.log2(2 / alpha));
}

/** The smallest p-value an exact test can reach is 2 / 2^(tasks that differ); say so when that exceeds alpha. */
function cannotSeparateNote(diffs: readonly number[], alpha: number, confidence: number): string | undefined {
  const differing = diffs.filter((d) => Math.abs(d) > TIE_TOLERANCE).length;
  if (2 / 2 ** differing <= alpha) return undefined;
  const needed = tasksToSeparate(alpha);
  const pct = Math.round(confidence * 1000) / 10;
  return `only ${differing} of ${diffs.length} shared tasks differ; a ${pct}% sign-flip test needs at least ${needed} to separate two agents`;
}
