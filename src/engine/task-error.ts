import { judge } from '../domain/grading/index.js';
import { formatDefect } from '../domain/tasks/index.js';
import { ATTEMPT_SCHEMA_VERSION, type AttemptPlan, type AttemptResult, type TaskDefect, type TestRunEvidence } from '../core/types/index.js';

/** Thrown inside an attempt when its task turns out to be broken: recorded as `task_error`, not the agent's failure. */
export class TaskDefectError extends Error {
  constructor(
    readonly defects: readonly TaskDefect[],
    /** The baseline's test run that showed the defects, when one did: kept in the attempt's record. */
    readonly baselineTests?: TestRunEvidence,
  ) {
    super(defects.map(formatDefect).join('; '));
    this.name = 'TaskDefectError';
  }
}

/** The one-line message of a task error: the first defects, each with its field and fix. */
export function taskErrorMessage(defects: readonly TaskDefect[]): string {
  const shown = defects.slice(0, 3).map(formatDefect).join('; ');
  return `task error: ${shown}${defects.length > 3 ? `; and ${defects.length - 3} more` : ''}`;
}

/**
 * The record of an attempt that never ran because the run's preflight found its task broken:
 * ERROR, cause `task_error`, left out of every pass rate like a harness error.
 */
export function taskErrorAttempt(
  plan: AttemptPlan,
  sandbox: string,
  defects: readonly TaskDefect[],
  at = new Date(),
  baselineTests?: TestRunEvidence,
): AttemptResult {
  return {
    ...plan,
    schemaVersion: ATTEMPT_SCHEMA_VERSION,
    ...judge({ kind: 'task_defect', message: taskErrorMessage(defects) }),
    sandbox,
    checks: [],
    timings: { prepareMs: 0, agentMs: 0, verifyMs: 0, totalMs: 0 },
    startedAt: at.toISOString(),
    finishedAt: at.toISOString(),
    taskError: { defects: [...defects] },
    // The preflight's baseline run that showed the defects (its output tail included), when one did.
    ...(baselineTests ? { baselineTests } : {}),
  };
}
