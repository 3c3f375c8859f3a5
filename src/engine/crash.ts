import { judge } from '../domain/grading/index.js';
import { ATTEMPT_SCHEMA_VERSION, type AttemptPlan, type AttemptResult } from '../core/types/index.js';

/**
 * The record of an attempt whose runner threw instead of returning a result. runAttempt promises
 * never to throw, so this is a harness bug or an exhausted machine (EMFILE, ENOSPC): it is the
 * harness's failure, never the agent's, and it must not cancel the attempts around it.
 */
export function crashedAttempt(plan: AttemptPlan, sandbox: string, startedAt: Date, error: unknown): AttemptResult {
  const message = error instanceof Error ? error.message : String(error);
  const finishedAt = new Date();
  const totalMs = finishedAt.getTime() - startedAt.getTime();
  return {
    ...plan,
    schemaVersion: ATTEMPT_SCHEMA_VERSION,
    ...judge({ kind: 'harness_fault', message: `attempt crashed: ${message}` }),
    sandbox,
    checks: [],
    timings: { prepareMs: 0, agentMs: 0, verifyMs: 0, totalMs },
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    // The phase is unknown when the runner itself threw; `record` is the step that owns the result.
    harnessError: { phase: 'record', message: `attempt crashed: ${message}` },
  };
}
