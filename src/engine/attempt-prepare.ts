/**
 * An attempt's prepare phase: the task's bench (its own tree, or a copy of the preflight's), then
 * the baseline's test runs before any agent, unless the preflight took them already. A baseline
 * that shows the task broken ends the attempt as the task's error.
 */
import { baselineDefects, taskWhere } from '../domain/tasks/index.js';
import type { AttemptResult, Task } from '../core/types/index.js';
import type { Bench, BenchPaths } from './bench.js';
import { SetupCommandError } from './bench.js';
import type { AttemptEnv } from './attempt-env.js';
import { PhaseError, timed } from './attempt-phase.js';
import { TaskDefectError } from './task-error.js';
import { openTaskBench } from './task-bench.js';
import type { AttemptSoFar } from './attempt-record.js';

export async function prepareAttempt(task: Task, paths: BenchPaths, env: AttemptEnv, timings: AttemptResult['timings'], sofar: AttemptSoFar): Promise<Bench> {
  const shared = env.taskBaselines?.get(task.id);
  const bench = await timed(timings, 'prepareMs', 'prepare', () =>
    // The online guard reads the workspace from the host as it changes: it keeps the copy.
    openTaskBench(task, paths, env, shared, { overlay: env.guard === undefined }).catch((error: unknown) => {
      // The parts that finished before setup failed still say where the time went.
      if (error instanceof SetupCommandError) Object.assign(timings, error.timings);
      throw error;
    }),
  );
  Object.assign(timings, bench.timings);
  sofar.bench = bench;
  if (bench.knownBaseline || env.baselineTests === false) return bench;
  await timed(timings, 'baselineMs', 'prepare', () =>
    bench.baselineRuns((run) => {
      // The run's preflight checks this once per task; this catches what it could not (no preflight, a changed repo).
      // A run that never started proves nothing about the repo: the task's error, not a failing test.
      const defects =
        run.evidence.invalidReason === undefined || run.evidence.notStarted !== undefined
          ? baselineDefects(task, taskWhere(task), run.evidence, run.cases?.map((c) => c.id) ?? [])
          : [];
      if (defects.length > 0) throw new PhaseError('prepare', new TaskDefectError(defects, run.evidence));
      return true;
    }),
  );
  return bench;
}
