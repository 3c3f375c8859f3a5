import { adaptiveState, nextTrials, type TrialRecord } from './adaptive-design.js';
import type { PairedVerdict } from '../../core/types/index.js';
import { pairedComparison } from './paired.js';
import { mulberry32, type Random } from './prng.js';

/** Synthetic agents with known pass probabilities: `passProbability[agent][task]`. */
export interface Scenario {
  agents: string[];
  passProbability: number[][];
}

/** How often one comparison came out each way over the simulated runs. */
export interface ComparisonOutcome {
  a: string;
  b: string;
  /** The true mean over tasks of p_a − p_b. */
  trueDiff: number;
  /** Share of runs that separated the agents in the true direction (0 when trueDiff is 0). */
  power: number;
  /** Share of runs that separated them wrongly: in the wrong direction, or at all when trueDiff is 0. */
  error: number;
}

export interface DesignOutcome {
  runs: number;
  /** Mean attempts a run spent. */
  attempts: number;
  comparisons: ComparisonOutcome[];
  /** Adaptive only: share of runs that met the target before the budget ran out. */
  met?: number;
}

export interface SimulationOptions {
  runs: number;
  seed?: number;
  confidence?: number;
}

/**
 * The fixed design: every agent tries every task `trials` times, then Crucible's paired test
 * (pairedComparison: sign-flip over per-task rate differences, Newcombe floor) decides each pair.
 * `iterations` only matters where the test falls back to Monte Carlo (trial counts with no small
 * common grid); on the scenarios' equal trial counts it is exact.
 */
export function simulateFixed(scenario: Scenario, trials: number, opts: SimulationOptions & { iterations?: number }): DesignOutcome {
  const random = mulberry32(opts.seed ?? 1);
  const confidence = opts.confidence ?? 0.95;
  const tally = comparisonTally(scenario);
  const tasks = taskCount(scenario);
  for (let run = 0; run < opts.runs; run++) {
    const outcomes = scenario.passProbability.map((row) => row.map((p, t) => ({ taskId: taskName(t), successes: binomial(random, trials, p), n: trials })));
    for (const c of tally) {
      const verdict = pairedComparison(outcomes[c.i] ?? [], outcomes[c.j] ?? [], { confidence, iterations: opts.iterations ?? 2000, seed: run + 1 }).verdict;
      count(c, verdict);
    }
  }
  return { runs: opts.runs, attempts: tasks * trials * scenario.agents.length, comparisons: tally.map((c) => summarize(c, opts.runs, scenario.agents)) };
}

/**
 * The adaptive design (adaptiveState + nextTrials) with a separate target, `batch` tasks per step
 * (what a run with that concurrency schedules between looks), stopped when every pair is decided or
 * `budget` attempts are spent.
 */
export function simulateAdaptive(scenario: Scenario, budget: number, opts: SimulationOptions & { batch?: number }): DesignOutcome {
  const random = mulberry32(opts.seed ?? 1);
  const confidence = opts.confidence ?? 0.95;
  const taskIds = Array.from({ length: taskCount(scenario) }, (_, t) => taskName(t));
  const index = new Map(scenario.agents.map((a, i) => [a, i]));
  const tally = comparisonTally(scenario);
  let spent = 0;
  let met = 0;
  for (let run = 0; run < opts.runs; run++) {
    const records: TrialRecord[] = [];
    let state = adaptiveState(records, scenario.agents, taskIds, { kind: 'separate', confidence });
    while (!state.met && records.length < budget) {
      const before = records.length;
      for (const step of nextTrials(records, state, taskIds, opts.batch ?? 8)) {
        if (records.length + step.agents.length > budget) break;
        for (const agent of step.agents) {
          const p = scenario.passProbability[index.get(agent) ?? 0]?.[Number(step.taskId.slice(1))] ?? 0;
          records.push({ taskId: step.taskId, agent, trial: step.trial, passed: random() < p });
        }
      }
      if (records.length === before) break; // the next pair set would overrun the budget
      state = adaptiveState(records, scenario.agents, taskIds, { kind: 'separate', confidence });
    }
    spent += records.length;
    if (state.met) met++;
    state.comparisons.forEach((c, k) => count(tally[k] as Tally, c.test.verdict));
  }
  return { runs: opts.runs, attempts: spent / opts.runs, comparisons: tally.map((c) => summarize(c, opts.runs, scenario.agents)), met: met / opts.runs };
}

interface Tally {
  i: number;
  j: number;
  trueDiff: number;
  aBetter: number;
  bBetter: number;
}

function comparisonTally(scenario: Scenario): Tally[] {
  const out: Tally[] = [];
  const rows = scenario.passProbability;
  for (let i = 0; i < rows.length; i++) {
    for (let j = i + 1; j < rows.length; j++) {
      const a = rows[i] ?? [];
      const b = rows[j] ?? [];
      const trueDiff = a.reduce((s, p, t) => s + p - (b[t] ?? 0), 0) / Math.max(1, a.length);
      out.push({ i, j, trueDiff, aBetter: 0, bBetter: 0 });
    }
  }
  return out;
}

function count(t: Tally, verdict: PairedVerdict): void {
  if (verdict === 'A better') t.aBetter++;
  else if (verdict === 'B better') t.bBetter++;
}

/** Differences below this are "no difference": the identical scenario's agents, up to rounding. */
const SAME = 1e-12;

function summarize(t: Tally, runs: number, agents: readonly string[]): ComparisonOutcome {
  const right = t.trueDiff > SAME ? t.aBetter : t.trueDiff < -SAME ? t.bBetter : 0;
  const wrong = t.trueDiff > SAME ? t.bBetter : t.trueDiff < -SAME ? t.aBetter : t.aBetter + t.bBetter;
  return { a: agents[t.i] ?? String(t.i), b: agents[t.j] ?? String(t.j), trueDiff: t.trueDiff, power: right / runs, error: wrong / runs };
}

function taskCount(scenario: Scenario): number {
  return scenario.passProbability[0]?.length ?? 0;
}

const taskName = (t: number): string => `t${String(t).padStart(4, '0')}`;

function binomial(random: Random, n: number, p: number): number {
  let k = 0;
  for (let i = 0; i < n; i++) if (random() < p) k++;
  return k;
}
