/**
 * A task's bench, as attempts, the preflight and `crucible tests` open it: the task's repo (or its
 * shared tree) in the sandbox layout of src/engine/sandbox-layout.ts, the reports named as an
 * attempt directory names them.
 */
import { ATTEMPT_JUNIT_FILES } from '../domain/run-dir/index.js';
import type { Task } from '../core/types/index.js';
import { openBench, type Bench, type BenchPaths } from './bench.js';
import type { AttemptEnv, TaskBaselineRuns } from './attempt-env.js';
import { isMachineError } from './agent-caused.js';
import { sandboxLayout } from './sandbox-layout.js';

export type TaskBenchEnv = Pick<AttemptEnv, 'stateDir' | 'sandbox' | 'signal' | 'environments' | 'executorFactory' | 'prepareCache' | 'onPrepared'>;

/** Opens `task`'s bench in `paths`: over a copy of the preflight's tree when `shared` has one, else prepared here; the preflight's baseline runs adopted. */
export function openTaskBench(task: Task, paths: BenchPaths, env: TaskBenchEnv, shared?: TaskBaselineRuns, agent?: { overlay: boolean }): Promise<Bench> {
  const { attemptDir, workspace } = paths;
  const environment = env.environments?.get(task.id);
  const source = shared?.tree
    ? { kind: 'shared' as const, taskId: task.id, tree: shared.tree, ...(env.onPrepared ? { onPrepared: env.onPrepared } : {}) }
    : {
        kind: 'task' as const,
        task,
        stateDir: env.stateDir,
        ...(environment ? { environment } : {}),
        ...(env.prepareCache === false ? { prepareCache: false } : {}),
        ...(env.onPrepared ? { onPrepared: env.onPrepared } : {}),
      };
  return openBench(
    task,
    source,
    {
      kind: env.sandbox,
      ...(env.executorFactory ? { executorFactory: env.executorFactory } : {}),
      ...(env.signal ? { signal: env.signal } : {}),
      layout: ({ baselineGitDir, alsoWritable }) =>
        sandboxLayout({
          task,
          stateDir: env.stateDir,
          workspace,
          attemptDir,
          ...(baselineGitDir ? { baselineGitDir } : {}),
          alsoWritable,
          environments: env.environments,
        }),
      // The agent's files can fail a checkout in ways only the machine should: those stay the harness's.
      changeCaused: (error) => !isMachineError(error, attemptDir),
      ...(agent?.overlay ? { agentOverlay: true } : {}),
    },
    {
      paths,
      reports: { dir: attemptDir, names: { ...ATTEMPT_JUNIT_FILES, patch: 'diff.patch' } },
      ...(shared ? { baselineRuns: { run: shared.run, ...(shared.heldOut ? { heldOut: shared.heldOut } : {}) } } : {}),
    },
  );
}
