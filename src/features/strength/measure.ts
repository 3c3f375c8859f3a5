import type { AttemptResult } from '../../core/types/index.js';
import { judgeFlake, judgeMutant, summarizeStrength, type MutantOutcome, type TaskStrength } from './judge.js';
import { writeCache, type StrengthPlan } from './plan.js';
import { survivorPatchPath } from './file.js';

/**
 * Each task's strength and flakiness from a validation run's attempts: the mutants graded now,
 * joined with those the cache had; the new outcomes are cached. `valid` says which tasks validated:
 * for any other a mutant's outcome means nothing (the oracle itself does not pass), so it has none.
 */
export async function measureStrength(
  plan: StrengthPlan,
  results: readonly AttemptResult[],
  valid: (taskId: string) => boolean,
  stateDir: string,
): Promise<{ tasks: TaskStrength[]; patches: Map<string, string> }> {
  const tasks: TaskStrength[] = [];
  const patches = new Map<string, string>();
  for (const t of plan.tasks) {
    const mine = results.filter((r) => r.taskId === t.task.id);
    const outcomes = new Map<string, MutantOutcome>(t.cached);
    for (const r of mine) {
      const m = plan.mutantOf(t.task.id, r.agent);
      if (m) outcomes.set(m.id, judgeMutant(r));
    }
    await writeCache(stateDir, t.key, outcomes);
    const flake = judgeFlake(mine.filter((r) => r.agent === 'nop' || r.agent === 'oracle'));
    if (!valid(t.task.id) || t.skipped) {
      const reason = t.skipped ?? 'the task is not valid: no mutant can be judged against an oracle that does not pass';
      tasks.push({ ...summarizeStrength(t.task.id, t.key, { ...t.set, mutants: [] }, new Map(), () => ''), skipped: reason, flake });
      continue;
    }
    for (const m of t.set.mutants) patches.set(m.id, m.patch);
    tasks.push({ ...summarizeStrength(t.task.id, t.key, t.set, outcomes, (m) => survivorPatchPath(t.task.id, m)), flake });
  }
  return { tasks, patches };
}
