import type { RunStats } from '../../core/types/index.js';
import { compareRuns as compareRunCells, type PlannedTask, type TaskImages } from '../../engine/index.js';
import type { HistoryReader } from '../../infra/store/index.js';
import { attemptRowsOf } from './history-view.js';
import { wilson } from '../../domain/stats/index.js';
import type { AgentRate, CompareView, RunView, TrendPointView, TrendView } from './view.js';

function rateOf(stats: RunStats | null, agent: string): AgentRate | null {
  const a = stats?.agents.find((x) => x.agent === agent);
  if (!a) return null;
  return { n: a.scored, passes: a.passes, rate: a.passRate?.rate ?? null, low: a.passRate?.low ?? null, high: a.passRate?.high ?? null };
}

const cellsOf = (v: Pick<RunView, 'stats'>) =>
  (v.stats?.cells ?? []).map((c) => ({ agent: c.agent, taskId: c.taskId, n: c.n, passes: c.passes, errors: c.harnessErrors }));

/**
 * Two runs side by side, compared by the engine exactly as `crucible compare` does (cell deltas and
 * a paired verdict per agent over the tasks both runs scored), with each run's own pass rates.
 */
export function compareRuns(
  a: Pick<RunView, 'run' | 'stats'>,
  b: Pick<RunView, 'run' | 'stats'>,
  tasks: { a?: readonly PlannedTask[]; b?: readonly PlannedTask[] } = {},
  environments: { a?: ReadonlyMap<string, TaskImages>; b?: ReadonlyMap<string, TaskImages> } = {},
): CompareView {
  const comparison = compareRunCells(
    { runId: a.run.runId, cells: cellsOf(a), ...(tasks.a ? { tasks: tasks.a } : {}), ...(environments.a ? { environments: environments.a } : {}) },
    { runId: b.run.runId, cells: cellsOf(b), ...(tasks.b ? { tasks: tasks.b } : {}), ...(environments.b ? { environments: environments.b } : {}) },
  );
  const agents = [...new Set([...(a.stats?.agents ?? []), ...(b.stats?.agents ?? [])].map((x) => x.agent))].sort();
  return { a: a.run, b: b.run, comparison, rates: agents.map((agent) => ({ agent, a: rateOf(a.stats, agent), b: rateOf(b.stats, agent) })) };
}

/** Trend points with a Wilson interval each, so a reader sees which wiggles are noise. */
export function trendView(bucket: 'day' | 'run', points: ReadonlyArray<Omit<TrendPointView, 'rate' | 'low' | 'high'>>): TrendView {
  return {
    bucket,
    points: points.map((p) => {
      const w = wilson(p.passes, p.n);
      return { ...p, rate: w?.rate ?? null, low: w?.low ?? null, high: w?.high ?? null };
    }),
  };
}

/**
 * The images each task's attempts ran on in a run, from the provenance in the history's attempt
 * documents (only a sandbox that runs task images records one).
 */
export function environmentsOfRun(reader: HistoryReader, runId: string): Map<string, TaskImages> {
  const found = new Map<string, { references: Set<string>; imageIds: Set<string> }>();
  for (const row of attemptRowsOf(reader, runId)) {
    const environment = reader.getAttempt(row.attemptId)?.attempt.environment;
    if (environment === undefined) continue;
    const entry = found.get(row.taskId) ?? { references: new Set<string>(), imageIds: new Set<string>() };
    entry.references.add(environment.reference);
    entry.imageIds.add(environment.imageId);
    found.set(row.taskId, entry);
  }
  return new Map([...found].map(([taskId, e]) => [taskId, { references: [...e.references].sort(), imageIds: [...e.imageIds].sort() }]));
}
