import { pairedComparison } from '../domain/stats/index.js';
import type { CellChange, CellCounts, CellDelta, EnvironmentChange, RunComparison, TaskImages } from '../core/types/index.js';
import type { PlannedTask } from './plan.js';

export type { AgentRunComparison, CellChange, CellCounts, CellDelta, EnvironmentChange, RunComparison, TaskImages } from '../core/types/index.js';

export interface RunCells {
  runId: string;
  cells: readonly CellCounts[];
  /** The run's planned tasks with their config hashes (from plan.json), when known. */
  tasks?: readonly PlannedTask[];
  /** docker runs: the images each task's attempts ran on, by task id (from their provenance). */
  environments?: ReadonlyMap<string, TaskImages>;
}

/**
 * Compares two runs cell by cell and, per agent, with the same paired sign-flip test the run uses
 * between agents: tasks scored in both runs are the pairs. When the runs share no agent and each
 * has exactly one (the usual "new model vs old model" case), those two are compared.
 */
export function compareRuns(a: RunCells, b: RunCells, opts: { seed?: number; confidence?: number } = {}): RunComparison {
  const key = (c: { agent: string; taskId: string }): string => JSON.stringify([c.agent, c.taskId]);
  const inA = new Map(a.cells.map((c) => [key(c), c]));
  const inB = new Map(b.cells.map((c) => [key(c), c]));
  const keys = [...new Set([...inA.keys(), ...inB.keys()])].sort();
  const cells = keys.map((k) => delta(inA.get(k) ?? null, inB.get(k) ?? null));

  const agentsA = unique(a.cells.map((c) => c.agent));
  const agentsB = unique(b.cells.map((c) => c.agent));
  const shared = agentsA.filter((x) => agentsB.includes(x));
  const notes: string[] = [];
  let pairings: Array<[string, string]> = shared.map((x) => [x, x]);
  if (pairings.length === 0 && agentsA.length === 1 && agentsB.length === 1) {
    pairings = [[agentsA[0] as string, agentsB[0] as string]];
    notes.push(`the runs share no agent; comparing ${agentsA[0]} (A) with ${agentsB[0]} (B)`);
  } else if (pairings.length === 0) {
    notes.push('the runs share no agent, so no paired comparison is possible');
  }
  const outcomes = (cellsOf: readonly CellCounts[], agent: string) =>
    cellsOf.filter((c) => c.agent === agent).map((c) => ({ taskId: c.taskId, successes: c.passes, n: c.n }));
  const pairs = pairings.map(([agentA, agentB]) => ({
    agentA,
    agentB,
    comparison: pairedComparison(outcomes(a.cells, agentA), outcomes(b.cells, agentB), { seed: opts.seed ?? 1, confidence: opts.confidence ?? 0.95 }),
  }));

  if (a.tasks !== undefined && b.tasks !== undefined) {
    const changed = changedTasks(a.tasks, b.tasks);
    if (changed.length > 0) {
      notes.push(
        `${changed.length > 1 ? 'tasks' : 'task'} ${changed.join(', ')} ${changed.length > 1 ? 'differ' : 'differs'} between the runs (content, version or grading settings): their deltas mix agent and task changes`,
      );
    }
  }
  const environmentChanges = imageChanges(a.environments, b.environments);
  for (const change of environmentChanges) {
    notes.push(
      `task ${change.taskId} ran on different images (A ${imagesText(change.a)}, B ${imagesText(change.b)}): its deltas mix agent and environment changes`,
    );
  }
  return {
    runA: a.runId,
    runB: b.runId,
    cells,
    regressions: cells.filter((c) => c.change === 'worse'),
    improvements: cells.filter((c) => c.change === 'better'),
    pairs,
    notes,
    ...(environmentChanges.length > 0 ? { environmentChanges } : {}),
  };
}

/**
 * Tasks of both plans whose identity differs. A plan written before task identities existed has
 * only the hash that mixes in the agents' settings (base URL, limits): such a pair is compared on
 * that hash, so an old recording and its replay still show as different, as they always did.
 */
function changedTasks(a: readonly PlannedTask[], b: readonly PlannedTask[]): string[] {
  const inB = new Map(b.map((t) => [t.id, t]));
  return a
    .filter((t) => {
      const other = inB.get(t.id);
      if (other === undefined) return false;
      return t.identity !== undefined && other.identity !== undefined ? t.identity !== other.identity : t.hash !== other.hash;
    })
    .map((t) => t.id);
}

/**
 * Tasks both runs ran whose image ids differ. The reference alone proves nothing: a tag (or a
 * Dockerfile with a mutable base) names whatever image it was built or pulled as that day.
 */
function imageChanges(a: RunCells['environments'], b: RunCells['environments']): EnvironmentChange[] {
  if (a === undefined || b === undefined) return [];
  const changes: EnvironmentChange[] = [];
  for (const [taskId, inA] of [...a].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
    const inB = b.get(taskId);
    if (inB !== undefined && inA.imageIds.join('\n') !== inB.imageIds.join('\n')) changes.push({ taskId, a: inA, b: inB });
  }
  return changes;
}

function imagesText(images: TaskImages): string {
  return `${images.imageIds.map((id) => id.replace(/^sha256:/, '').slice(0, 12)).join(', ')} from ${images.references.join(', ')}`;
}

function delta(a: CellCounts | null, b: CellCounts | null): CellDelta {
  const first = (a ?? b) as CellCounts;
  const rate = (c: CellCounts | null): number | null => (c === null || c.n === 0 ? null : c.passes / c.n);
  const rateA = rate(a);
  const rateB = rate(b);
  const d = rateA === null || rateB === null ? null : rateB - rateA;
  const change: CellChange = a === null ? 'only in B' : b === null ? 'only in A' : d === null ? 'unscored' : d < 0 ? 'worse' : d > 0 ? 'better' : 'same';
  return { agent: first.agent, taskId: first.taskId, a, b, rateA, rateB, delta: d, change };
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}
