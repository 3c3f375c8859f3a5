/**
 * What a red-team file shares between its attempts, made once as `crucible run` makes it: each
 * task's prepared tree, baseline commit and baseline test runs, taken by the run's preflight before
 * any agent (src/engine/preflight.ts, shared-baseline.ts), and the attempts run a few at a time.
 * Each attempt still starts from its own copy of the tree and is judged on its own tests.
 */
import { join } from 'node:path';
import { preflightTasks } from '../../../src/engine/preflight.js';
import { removeSharedTrees } from '../../../src/engine/shared-baseline.js';
import type { TaskBaselineRuns } from '../../../src/engine/attempt.js';
import type { ResolvedEnvironment } from '../../../src/domain/environment/index.js';
import type { SandboxKind } from '../../../src/infra/sandbox/index.js';
import type { Task } from '../../../src/core/types/index.js';

export interface SharedBaselines {
  /** Per task id: the baseline runs and prepared tree every attempt of the task takes as its own. */
  taskBaselines: Map<string, TaskBaselineRuns>;
  /** Where the shared trees lie (`<runDir>/preflight`): fingerprint it to show no attempt changed it. */
  preflightDir: string;
  /** Removes the shared trees once every attempt is done. */
  remove(): Promise<void>;
}

/**
 * The preflight of `tasks` in `runDir`, its trees kept for the attempts; throws unless every task is
 * fit, fully checked and shared (a red-team run on a broken task would prove nothing).
 */
export async function shareBaselines(
  tasks: readonly Task[],
  options: { stateDir: string; runDir: string; sandbox: SandboxKind; oracle: boolean; environments?: ReadonlyMap<string, ResolvedEnvironment> },
): Promise<SharedBaselines> {
  const preflightDir = join(options.runDir, 'preflight');
  const checked = await preflightTasks(tasks, {
    stateDir: options.stateDir,
    dir: preflightDir,
    sandbox: options.sandbox,
    oracle: options.oracle,
    concurrency: 2,
    shareTree: true,
    ...(options.environments ? { environments: options.environments } : {}),
  });
  const unfit = checked
    .filter((c) => c.defects.length > 0 || c.unchecked !== undefined || c.baseline?.tree === undefined)
    .map((c) => ({ task: c.taskId, defects: c.defects, unchecked: c.unchecked, shared: c.baseline?.tree !== undefined }));
  if (unfit.length > 0) {
    await removeSharedTrees(preflightDir);
    throw new Error(`preflight (${options.sandbox}): ${JSON.stringify(unfit)}`);
  }
  return {
    taskBaselines: new Map(checked.map((c) => [c.taskId, c.baseline as TaskBaselineRuns])),
    preflightDir,
    remove: () => removeSharedTrees(preflightDir),
  };
}

/** Runs `work` on every item, `concurrency` at a time (two: a 2-core machine). */
export async function inPool<T>(items: readonly T[], work: (item: T, index: number) => Promise<void>, concurrency = 2): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
