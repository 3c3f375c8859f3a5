import type { TaskSelection } from '../domain/tasks/index.js';
import type { AttemptResult, Task } from '../core/types/index.js';
import { executeRun, type AttemptSettings, type RunObserver, type RunOptions, type RunOutcome } from './run.js';
import type { RunSession } from './session.js';

/** The task set a validation runs, as loadRunInput gives it (a task set or a suite). */
export interface ValidationTaskSet {
  /** Absolute path of the file. */
  file: string;
  taskIndex: ReadonlyMap<string, number>;
  taskSets: ReadonlyMap<string, string>;
}

export interface ValidationRunOptions {
  taskSet: ValidationTaskSet;
  /** The task-set file as the run records it (relative to where the user ran from). */
  taskSetFile: string;
  tasks: Task[];
  selection: TaskSelection;
  agents: string[];
  trials: number;
  agentTrials?: Record<string, number>;
  only?: (taskId: string, agent: string) => boolean;
  /** Agents the caller makes (validate --strength's mutants); the default resolves names as `run` does. */
  resolveAgent?: RunOptions['resolveAgent'];
  stateDir: string;
  settings: AttemptSettings;
  concurrency: number;
  /** The session whose signals stop (first Ctrl-C, grace period) and kill (second) the run. */
  session: Pick<RunSession, 'stop' | 'kill'>;
  observer?: RunObserver;
  /** Each attempt as it is recorded, in full (the outcome's copies are slimmed). */
  onResult?: (result: AttemptResult) => void;
}

/**
 * Every kind of validation (`crucible validate`, `--adversarial`, `crucible audit`): one engine run
 * of kind `validate` (preflight, checkpoint, lock; in `<out>/validate/`), recorded in the history
 * marked `validate`, so `history --runs`, `show` and the dashboard list it. Returns the outcome and
 * every attempt in full.
 */
export async function runValidation(v: ValidationRunOptions): Promise<{ outcome: RunOutcome; results: AttemptResult[] }> {
  const results: AttemptResult[] = [];
  const observer = v.observer;
  const outcome = await executeRun({
    kind: 'validate',
    taskSetFile: v.taskSetFile,
    taskSetPath: v.taskSet.file,
    tasks: v.tasks,
    taskIndex: v.taskSet.taskIndex,
    ...(v.taskSet.taskSets.size > 0 ? { taskSets: v.taskSet.taskSets } : {}),
    selection: v.selection,
    agents: v.agents,
    trials: v.trials,
    ...(v.agentTrials ? { agentTrials: v.agentTrials } : {}),
    ...(v.only ? { only: v.only } : {}),
    ...(v.resolveAgent ? { resolveAgent: v.resolveAgent } : {}),
    stateDir: v.stateDir,
    settings: v.settings,
    concurrency: v.concurrency,
    signal: v.session.stop,
    killSignal: v.session.kill,
    observer: {
      ...observer,
      onAttemptDone: (r) => {
        observer?.onAttemptDone?.(r);
        results.push(r);
        v.onResult?.(r);
      },
    },
  });
  return { outcome, results };
}
