import { openHistory, type AttemptExtra, type History, type RunFinish, type RunMeta } from '../infra/store/index.js';
import { taskRepoKey } from '../domain/tasks/index.js';
import { OptionError } from '../core/errors.js';
import type { AttemptResult, Task } from '../core/types/index.js';

/**
 * The run's view of the history database. The checkpoint, not the history, is the record of what
 * finished, so a failed history write warns instead of failing a long run; a resume re-records
 * every reused attempt, which repairs whatever a crash or a failed write left out.
 */
export interface RunHistory {
  recordRun(meta: RunMeta): void;
  recordAttempt(runId: string, attempt: AttemptResult, task: Task | undefined): void;
  recordAttempts(runId: string, attempts: readonly AttemptResult[], taskOf: (taskId: string) => Task | undefined): void;
  deleteAttempts(runId: string, attemptIds: readonly string[]): void;
  finishRun(runId: string, finish: RunFinish): void;
  close(): void;
}

export function attemptExtra(task: Task | undefined): AttemptExtra {
  if (task === undefined) return {};
  const extra: AttemptExtra = { repoKey: taskRepoKey(task) };
  if (task.metadata.category !== undefined) extra.category = task.metadata.category;
  if (task.metadata.difficulty !== undefined) extra.difficulty = task.metadata.difficulty;
  return extra;
}

export function openRunHistory(path: string, warn: (message: string) => void): RunHistory {
  let history: History;
  try {
    history = openHistory(path);
  } catch (error) {
    throw new OptionError([], describe(error), 'use another state directory ({stateDir}), or move the file away');
  }
  let failures = 0;
  const guarded = (what: string, work: () => void): void => {
    try {
      work();
    } catch (error) {
      // One warning, then a count at the end: a broken disk should not print 10 000 lines.
      if (failures++ === 0) warn(`could not write the history (${what}: ${describe(error)}); the run goes on, \`crucible resume\` re-records it`);
    }
  };
  return {
    recordRun: (meta) => guarded('run', () => history.recordRun(meta)),
    recordAttempt: (runId, attempt, task) => guarded(attempt.attemptId, () => history.recordAttempt(runId, attempt, attemptExtra(task))),
    recordAttempts: (runId, attempts, taskOf) => {
      if (attempts.length === 0) return;
      guarded(`${attempts.length} attempts`, () =>
        history.recordAttempts(
          runId,
          attempts.map((attempt) => ({ attempt, extra: attemptExtra(taskOf(attempt.taskId)) })),
        ),
      );
    },
    deleteAttempts: (runId, ids) => guarded('superseded attempts', () => void history.deleteAttempts(runId, ids)),
    finishRun: (runId, finish) => guarded('run summary', () => history.finishRun(runId, finish)),
    close: () => {
      // Closing checkpoints the WAL, which a full disk fails too; it must not hide why the run stopped.
      guarded('close', () => history.close());
      if (failures > 1) warn(`${failures} history writes failed in all`);
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
