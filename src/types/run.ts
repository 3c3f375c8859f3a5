import type { AttemptResult, Cause, Verdict } from './attempt.js';

export const RUN_SCHEMA_VERSION = 1;

/** The stable part of `summary.json` and `crucible run --json`; scripts may rely on these fields. */
export interface RunSummary {
  schemaVersion: typeof RUN_SCHEMA_VERSION;
  runId: string;
  taskSet: string;
  createdAt: string;
  finishedAt: string;
  planned: number;
  executed: number;
  stoppedEarly: boolean;
  counts: Record<Verdict, number>;
  attempts: AttemptSummaryRow[];
}

export interface AttemptSummaryRow {
  attemptId: string;
  taskId: string;
  agent: string;
  trial: number;
  verdict: Verdict;
  cause: Cause;
  message: string;
  /** Path of the attempt's directory, relative to the run directory. */
  dir: string;
}

export function toSummaryRow(a: AttemptResult): AttemptSummaryRow {
  return {
    attemptId: a.attemptId,
    taskId: a.taskId,
    agent: a.agent,
    trial: a.trial,
    verdict: a.verdict,
    cause: a.cause,
    message: a.message,
    dir: `attempts/${a.attemptId}`,
  };
}
