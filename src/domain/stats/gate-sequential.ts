import { mulberry32 } from './prng.js';
import { assertConfidence } from './validate.js';

/** One finished trial, as adaptive-design.ts defines it (repeated here to keep the import one way). */
interface Trial {
  taskId: string;
  agent: string;
  trial: number;
  passed: boolean | null;
}

/** One agent gated against its baseline agent's fixed per-task pass rates. */
export interface GatedAgent {
  agent: string;
  /** The baseline's pass rate on each gated task: fixed data, never sampled again. */
  baseline: Record<string, number>;
}

/**
 * `gate --adaptive`: decide, per agent, whether its task-weighted pass rate is at least the
 * baseline's minus `margin`, at error rate 1 − confidence. `batch` and `seed` fix the random task
 * draws, so a resumed run replays exactly the draws it made before (plan.json keeps them).
 */
export interface GateTarget {
  kind: 'gate';
  confidence: number;
  /** The drop tolerated, as a fraction (`--max-drop` / 100). */
  margin: number;
  agents: GatedAgent[];
  /** The gated tasks, in the order the draws index them. */
  tasks: string[];
  /** Draws per look. */
  batch: number;
  seed: number;
}

export type GateDecision = 'pass' | 'fail' | 'open';

export interface GateSequence {
  agent: string;
  /** The baseline's task-weighted pass rate over the gated tasks. */
  baselineRate: number;
  /** baselineRate − margin: the rate the candidate is tested against. */
  reference: number;
  decision: GateDecision;
  /** The e-process against "the candidate's rate ≤ reference" (reaching the threshold decides pass)… */
  eForPass: number;
  /** …and against "the candidate's rate ≥ reference" (reaching it decides fail). */
  eForFail: number;
  threshold: number;
  /** Observations counted (scored draws). */
  steps: number;
  /** The mean of the observations: an unbiased estimate of the candidate's task-weighted rate. */
  estimate: number | null;
  /** The draws to run next: the rest of the current look, or the next look; empty once decided. */
  pending: Array<{ taskId: string; trial: number }>;
  /** Natural logs of the e-processes, for the futility bound. */
  logForPass: number;
  logForFail: number;
}

/** Bets never stake more than this share of what the observation's range could lose. */
const MAX_BET = 0.5;
/** Observations lie in [LOW, HIGH] whatever the state: m̄ ∈ [0, 1] and |x − m̂| ≤ 1. */
const LOW = -1;
const HIGH = 2;

/** The largest bets the e-processes ever place on either side; fixed, so the futility bound below holds. */
function betCaps(reference: number): { pass: number; fail: number } {
  return { pass: MAX_BET / (reference - LOW), fail: MAX_BET / (HIGH - reference) };
}

/**
 * The anytime-valid gate test of one agent against a fixed reference, replayed from its finished
 * trials (pure: a resumed run rebuilds exactly this).
 *
 * Design. Look after look, `batch` draws pick tasks uniformly at random (seeded, so a replay makes
 * the same draws); each draw runs the task's next trial.
 *
 * Observation (a difference estimator with predictable control variates): with m̂_u the candidate's
 * smoothed pass rate (s + ½)/(n + 1) on task u before the look and m̄ their mean, a draw of task t
 * that gives x ∈ {0, 1} is y = m̄ + x − m̂_t. Whatever the past, E[y | past] = m̄ + mean_t (p_t − m̂_t)
 * = mean_t p_t = μ, the candidate's task-weighted pass rate, and y lies in [LOW, HIGH]. Once a task's
 * outcome is settled (m̂_t near p_t) its draws add almost no noise, so the test needs fewer trials
 * than one on raw outcomes: the variance left is that of the tasks still open. (Drawing the open
 * tasks more often needs inverse-probability weights, whose wider range forces smaller bets; in a
 * simulation of bench/adaptive.mjs's clearly worse gate that cost more than it saved, docs/adaptive.md.)
 *
 * Test. r = baseline rate − margin is a constant (the baseline is data, not a sample). Two betting
 * e-processes (Waudby-Smith & Ramdas 2024, JRSS-B 86(1), testing by betting with predictable aGRAPA
 * bets, §5 and Appendix B): K⁺ = Π(1 + λ⁺(y − r)) is a nonnegative supermartingale when μ ≤ r and
 * K⁻ = Π(1 − λ⁻(y − r)) one when μ ≥ r, since each bet is fixed before its observation and capped
 * so no factor can reach 0. By Ville's inequality each reaches 1/α with probability at most α
 * under its null, at any stopping time: K⁺ ≥ 1/α decides pass, K⁻ ≥ 1/α decides fail. When the
 * candidate regressed beyond the margin (μ < r) a pass is wrong with probability ≤ α; when it did
 * not (μ ≥ r) a fail is wrong with probability ≤ α.
 */
export function gateSequence(records: readonly Trial[], gated: GatedAgent, taskIds: readonly string[], target: GateTarget): GateSequence {
  assertGateTarget(target);
  const T = taskIds.length;
  if (T === 0) throw new RangeError('a gate needs at least one task');
  const base = taskIds.map((id) => {
    const rate = gated.baseline[id];
    if (rate === undefined || !(rate >= 0 && rate <= 1)) throw new RangeError(`baseline rate of task ${id} for ${gated.agent} must lie in [0, 1], got ${rate}`);
    return rate;
  });
  const baselineRate = base.reduce((s, x) => s + x, 0) / T;
  const reference = baselineRate - target.margin;
  const threshold = Number((1 / (1 - target.confidence)).toPrecision(12));
  const logThreshold = Math.log(threshold);
  const rows = taskIds.map(() => [] as Array<boolean | null>);
  const index = new Map(taskIds.map((id, i) => [id, i]));
  for (const r of records) {
    const i = index.get(r.taskId);
    if (r.agent === gated.agent && i !== undefined) (rows[i] as Array<boolean | null>)[r.trial] = r.passed;
  }
  const result = (decision: GateDecision, s: Running, pending: GateSequence['pending']): GateSequence => ({
    agent: gated.agent,
    baselineRate,
    reference,
    decision,
    eForPass: Math.exp(s.logUp),
    eForFail: Math.exp(s.logDown),
    threshold,
    steps: s.n,
    estimate: s.n === 0 ? null : s.sum / s.n,
    pending,
    logForPass: s.logUp,
    logForFail: s.logDown,
  });
  const run: Running = { logUp: 0, logDown: 0, n: 0, sum: 0, squares: 0 };
  // Every rate is at least 0: a margin as large as the baseline's rate cannot be crossed.
  if (reference <= 0) return result('pass', run, []);
  const caps = betCaps(reference);
  const passes = taskIds.map(() => 0);
  const tried = taskIds.map(() => 0);
  const cursor = taskIds.map(() => 0);
  for (let look = 0; ; look++) {
    const smoothed = taskIds.map((_, t) => ((passes[t] as number) + 0.5) / ((tried[t] as number) + 1));
    const mBar = smoothed.reduce((s, x) => s + x, 0) / T;
    // aGRAPA: the bet that maximises expected log growth at the plug-in mean and variance, clipped.
    const mean = (run.sum + mBar) / (run.n + 1);
    const variance = (run.squares - 2 * mean * run.sum + run.n * mean * mean + 0.25) / (run.n + 1);
    const gap = mean - reference;
    const lambdaUp = clip(gap / (variance + gap * gap), caps.pass);
    const lambdaDown = clip(-gap / (variance + gap * gap), caps.fail);
    const random = mulberry32(lookSeed(target.seed, look));
    const at = [...cursor];
    const seen: Array<[number, boolean]> = [];
    const pending: GateSequence['pending'] = [];
    for (let d = 0; d < target.batch; d++) {
      const t = Math.min(T - 1, Math.floor(random() * T));
      const row = rows[t] as Array<boolean | null>;
      let k = at[t] as number;
      // An unscored trial (a harness error) says nothing; the draw takes the task's next trial.
      while (row[k] === null) k++;
      at[t] = k + 1;
      const x = row[k];
      if (x === undefined || x === null) {
        pending.push({ taskId: taskIds[t] as string, trial: k });
        continue;
      }
      seen.push([t, x]);
      const y = mBar + (x ? 1 : 0) - (smoothed[t] as number);
      run.logUp += Math.log(1 + lambdaUp * (y - reference));
      run.logDown += Math.log(1 - lambdaDown * (y - reference));
      run.n++;
      run.sum += y;
      run.squares += y * y;
      if (run.logUp >= logThreshold) return result('pass', run, []);
      if (run.logDown >= logThreshold) return result('fail', run, []);
    }
    if (pending.length > 0) return result('open', run, pending);
    for (const [t, x] of seen) {
      tried[t] = (tried[t] as number) + 1;
      if (x) passes[t] = (passes[t] as number) + 1;
    }
    at.forEach((k, t) => (cursor[t] = k));
  }
}

interface Running {
  logUp: number;
  logDown: number;
  n: number;
  sum: number;
  squares: number;
}

/**
 * Futility: true when `remaining` more observations cannot bring either e-process to its threshold,
 * even if every one of them paid the most a capped bet can win. Stopping then gives up no decision
 * the budget could still reach, and stopping without deciding never adds an error.
 */
export function gateFutile(seq: GateSequence, remaining: number): boolean {
  if (seq.decision !== 'open') return false;
  const caps = betCaps(seq.reference);
  const bestUp = Math.log(1 + caps.pass * (HIGH - seq.reference));
  const bestDown = Math.log(1 + caps.fail * (seq.reference - LOW));
  const need = Math.log(seq.threshold);
  return seq.logForPass + remaining * bestUp < need && seq.logForFail + remaining * bestDown < need;
}

function clip(x: number, cap: number): number {
  return Number.isFinite(x) ? Math.min(Math.max(x, 0), cap) : 0;
}

/** A seed per look, so the draws of look k do not depend on how many were made before it. */
function lookSeed(seed: number, look: number): number {
  return (Math.trunc(seed) ^ Math.imul(look + 1, 0x9e3779b1)) >>> 0;
}

function assertGateTarget(target: GateTarget): void {
  assertConfidence(target.confidence);
  if (!(target.margin >= 0 && target.margin <= 1)) throw new RangeError(`margin must lie in [0, 1], got ${target.margin}`);
  if (!Number.isInteger(target.batch) || target.batch < 1) throw new RangeError(`batch must be a positive integer, got ${target.batch}`);
  if (!Number.isFinite(target.seed)) throw new RangeError(`seed must be a finite number, got ${target.seed}`);
}
