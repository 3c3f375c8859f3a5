import { simulateAdaptive, simulateFixed, type Scenario } from './design-simulation.js';

export interface PlanQuestion {
  /** Tasks in the task set. */
  tasks: number;
  /** The difference in pass rate to detect, e.g. 0.05. */
  detect: number;
  /** Wanted chance of separating the agents when the difference is `detect`, e.g. 0.8. */
  power: number;
  confidence?: number;
  /** Simulated runs per design evaluated. */
  runs?: number;
  seed?: number;
  /** Trials per task and agent the search goes up to. */
  maxTrials?: number;
  /** Trials per task for the "how many tasks" answer (default 3) and the most tasks searched (default 2000). */
  tasksAtTrials?: number;
  maxTasks?: number;
}

export interface DesignPlan {
  /** The model simulated: every task at p_B = 1/2 − d/2 for one agent and 1/2 + d/2 for the other. */
  model: string;
  /** Smallest trials per task and agent with at least `power`; null when `maxTrials` is not enough. */
  fixed: { trials: number; attempts: number; power: number } | null;
  /** Adaptive with the fixed design's attempts as budget: what it spends on average and its power. */
  adaptive: { attempts: number; power: number; budget: number } | null;
  /** Tasks a fixed design of `tasksAtTrials` trials per task needs instead; null past `maxTasks`. */
  tasksNeeded: { trials: number; tasks: number; attempts: number; power: number } | null;
}

/**
 * How many trials the fixed design needs to separate two agents by `detect` with Crucible's paired
 * test (pairedComparison), and what the adaptive design spends instead, both by simulation. The
 * model has no easy or impossible tasks (p = 1/2 ± d/2 on every task, the most noise per trial), so
 * the fixed figure is an upper bound for task sets whose tasks mostly agree, and the adaptive
 * design's advantage there (retiring tasks that cannot separate) does not show: bench/adaptive.mjs
 * measures that on mixed task sets.
 */
export function planDesigns(q: PlanQuestion): DesignPlan {
  const confidence = q.confidence ?? 0.95;
  const runs = q.runs ?? 200;
  const seed = q.seed ?? 1;
  const maxTrials = q.maxTrials ?? 200;
  const high = 0.5 + q.detect / 2;
  const low = 0.5 - q.detect / 2;
  const scenarioOf = (tasks: number): Scenario => ({
    agents: ['a', 'b'],
    passProbability: [Array.from({ length: tasks }, () => high), Array.from({ length: tasks }, () => low)],
  });
  const scenario = scenarioOf(q.tasks);
  const powerOf = (tasks: number, trials: number): number =>
    simulateFixed(scenarioOf(tasks), trials, { runs, seed: seed + trials + tasks, confidence, iterations: 500 }).comparisons[0]?.power ?? 0;
  const model = `every task at ${pct(low)} for one agent and ${pct(high)} for the other`;
  const atTrials = q.tasksAtTrials ?? 3;
  const needed = smallest((tasks) => powerOf(tasks, atTrials), Math.min(6, q.maxTasks ?? 2000), q.maxTasks ?? 2000, q.power);
  const tasksNeeded = needed ? { trials: atTrials, tasks: needed.at, attempts: needed.at * atTrials * 2, power: needed.power } : null;
  const found = smallest((trials) => powerOf(q.tasks, trials), 1, maxTrials, q.power);
  if (!found) return { model, fixed: null, adaptive: null, tasksNeeded };
  const hi = found.at;
  const hiPower = found.power;
  const attempts = hi * q.tasks * 2;
  const adaptive = simulateAdaptive(scenario, attempts, { runs: Math.max(20, Math.floor(runs / 4)), seed, confidence, batch: q.tasks });
  return {
    model,
    fixed: { trials: hi, attempts, power: hiPower },
    adaptive: { attempts: adaptive.attempts, power: adaptive.comparisons[0]?.power ?? 0, budget: attempts },
    tasksNeeded,
  };
}

/**
 * Power grows with trials and with tasks: the smallest value in [from, to] that reaches `power`,
 * doubling from `from` first (a large value is the costly one to simulate), then bisecting.
 */
function smallest(powerAt: (value: number) => number, from: number, to: number, power: number): { at: number; power: number } | undefined {
  let lo = from - 1;
  let hi = from;
  let hiPower = powerAt(hi);
  while (hiPower < power) {
    if (hi >= to) return undefined;
    lo = hi;
    hi = Math.min(to, hi * 2);
    hiPower = powerAt(hi);
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const p = powerAt(mid);
    if (p >= power) {
      hi = mid;
      hiPower = p;
    } else lo = mid;
  }
  return { at: hi, power: hiPower };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
