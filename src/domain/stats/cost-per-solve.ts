import { UNSCORED_CAUSES, type AttemptResult } from '../../core/types/index.js';
import { pairedComparison, type TaskOutcome } from './paired.js';
import { mulberry32, randomIndex } from './prng.js';
import { quantileSorted } from './quantile.js';
import { assertConfidence, assertFinite, assertSuccesses } from './validate.js';

/** One agent on one task: scored attempts, passes and the dollars they cost (metered by the gateway). */
export interface TaskCost {
  taskId: string;
  successes: number;
  n: number;
  cost: number;
}

/** Dollars per solved task: total cost / total passes, with a task-clustered bootstrap interval. */
export interface CostPerSolve {
  /** Null when nothing passed: no solved task to divide by. */
  cost: number | null;
  low: number | null;
  /** Infinity when some resample solved nothing: the data do not bound the cost from above. */
  high: number | null;
  solved: number;
  spent: number;
  tasks: number;
}

/**
 * Cost per solved task, Σ cost / Σ passes over the agent's tasks. The interval resamples tasks with
 * replacement (attempts of one task share its difficulty and its cost) and takes percentiles of the
 * ratio; a resample with no pass has an infinite ratio, so few passes give an open upper end rather
 * than a falsely tight one.
 */
export function costPerSolve(rows: readonly TaskCost[], opts: { seed: number; confidence?: number; iterations?: number }): CostPerSolve {
  const confidence = opts.confidence ?? 0.95;
  const iterations = opts.iterations ?? 10_000;
  assertConfidence(confidence);
  for (const r of rows) assertSuccesses(r.successes, r.n);
  assertFinite(
    'cost',
    rows.map((r) => r.cost),
  );
  const solved = rows.reduce((s, r) => s + r.successes, 0);
  const spent = rows.reduce((s, r) => s + r.cost, 0);
  if (solved === 0 || rows.length === 0) return { cost: null, low: null, high: null, solved, spent, tasks: rows.length };
  const random = mulberry32(opts.seed);
  const ratios = new Float64Array(iterations);
  for (let it = 0; it < iterations; it++) {
    let c = 0;
    let s = 0;
    for (let j = 0; j < rows.length; j++) {
      const r = rows[randomIndex(random, rows.length)] as TaskCost;
      c += r.cost;
      s += r.successes;
    }
    ratios[it] = s === 0 ? Infinity : c / s;
  }
  ratios.sort();
  const alpha = 1 - confidence;
  return { cost: spent / solved, low: quantileOpen(ratios, alpha / 2), high: quantileOpen(ratios, 1 - alpha / 2), solved, spent, tasks: rows.length };
}

export interface FrontierPoint {
  agent: string;
  rows: readonly TaskCost[];
}

export interface FrontierEntry {
  agent: string;
  /** Agents that dominate this one: the paired test says they pass more and they cost no more per solve. */
  dominatedBy: string[];
}

/**
 * The pass-rate / cost frontier. B dominates A only when Crucible's paired test separates them with
 * B better AND B's cost per solved task is no higher than A's (its upper bound at most A's estimate),
 * so an agent is never shown as dominated on a difference the data do not establish.
 */
export function costFrontier(points: readonly FrontierPoint[], opts: { seed: number; confidence?: number }): FrontierEntry[] {
  const costs = new Map(points.map((p) => [p.agent, costPerSolve(p.rows, opts)]));
  const outcomes = (rows: readonly TaskCost[]): TaskOutcome[] => rows.map(({ taskId, successes, n }) => ({ taskId, successes, n }));
  return points.map((a) => {
    const dominatedBy = points
      .filter((b) => b.agent !== a.agent)
      .filter((b) => {
        const verdict = pairedComparison(outcomes(b.rows), outcomes(a.rows), { confidence: opts.confidence ?? 0.95, seed: opts.seed }).verdict;
        const cb = costs.get(b.agent);
        const ca = costs.get(a.agent);
        const cheaper = cb?.high !== null && cb?.high !== undefined && (ca?.cost === null || (ca?.cost !== undefined && cb.high <= ca.cost));
        return verdict === 'A better' && cheaper;
      })
      .map((b) => b.agent);
    return { agent: a.agent, dominatedBy };
  });
}

/** quantileSorted where the top of the sample may be Infinity (∞ − ∞ would interpolate to NaN). */
function quantileOpen(sorted: Float64Array, q: number): number {
  const h = (sorted.length - 1) * q;
  if (sorted[Math.min(Math.ceil(h), sorted.length - 1)] === Infinity) return Number.isInteger(h) ? (sorted[h] as number) : Infinity;
  return quantileSorted(sorted, q);
}

/**
 * Per agent, per task: scored attempts, passes and metered dollars, for agents whose every scored
 * attempt carries a cost (an agent without metering has no cost per solve, rather than a low one).
 */
export function costRowsOf(attempts: readonly AttemptResult[]): FrontierPoint[] {
  const byAgent = new Map<string, Map<string, TaskCost>>();
  const unmetered = new Set<string>();
  for (const a of attempts) {
    if (UNSCORED_CAUSES.has(a.cause)) continue;
    const cost = a.agentResult?.usage?.costUsd;
    if (cost === undefined || !Number.isFinite(cost)) {
      unmetered.add(a.agent);
      continue;
    }
    const tasks = byAgent.get(a.agent) ?? new Map<string, TaskCost>();
    const row = tasks.get(a.taskId) ?? { taskId: a.taskId, successes: 0, n: 0, cost: 0 };
    row.n++;
    if (a.verdict === 'PASS') row.successes++;
    row.cost += cost;
    tasks.set(a.taskId, row);
    byAgent.set(a.agent, tasks);
  }
  return [...byAgent].filter(([agent]) => !unmetered.has(agent)).map(([agent, tasks]) => ({ agent, rows: [...tasks.values()] }));
}
