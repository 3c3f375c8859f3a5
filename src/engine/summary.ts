import { RUN_SCHEMA_VERSION, toSummaryRow, type AttemptResult, type RunStats, type RunSummary } from '../core/types/index.js';
import { guardCounts } from '../domain/guard/index.js';
import type { FailedFast, RunEnd } from './attempt-loop.js';
import type { RunBudgetReport } from './run-budget.js';
import type { AdaptiveSummary } from './adaptive-run.js';
import type { AgentFailurePatterns } from '../core/types/index.js';

/** `summary.json`: the stable RunSummary plus what this engine adds. */
export interface RunSummaryFile extends RunSummary {
  configHash: string;
  ended: RunEnd;
  /** Attempts taken from the checkpoint rather than run in this invocation. */
  reused: number;
  /** The attempt that stopped a fail-fast run. */
  failedFast?: FailedFast;
  /** With --max-cost-total / --max-tokens-total: what the run spent, and the cap that stopped it. */
  runBudget?: RunBudgetReport;
  stats: RunStats;
  /** An adaptive run: how it stopped and what it decided (engine/adaptive-run.ts). */
  adaptive?: AdaptiveSummary;
  /** Per agent with a failed attempt: what those attempts did (report/failure-patterns.ts). */
  failurePatterns?: AgentFailurePatterns[];
}

export interface SummaryInput {
  runId: string;
  taskSet: string;
  createdAt: string;
  configHash: string;
  planned: number;
  /** Finished attempts, in plan order. */
  attempts: readonly AttemptResult[];
  reused: number;
  ended: RunEnd;
  failedFast?: FailedFast;
  runBudget?: RunBudgetReport;
  stats: RunStats;
  adaptive?: AdaptiveSummary;
  failurePatterns?: AgentFailurePatterns[];
}

export function buildSummary(input: SummaryInput): RunSummaryFile {
  const { attempts } = input;
  const complete = attempts.length === input.planned;
  const guard = guardCounts(attempts);
  return {
    schemaVersion: RUN_SCHEMA_VERSION,
    runId: input.runId,
    taskSet: input.taskSet,
    createdAt: input.createdAt,
    finishedAt: new Date().toISOString(),
    planned: input.planned,
    executed: attempts.length,
    stoppedEarly: !complete,
    counts: {
      PASS: attempts.filter((a) => a.verdict === 'PASS').length,
      FAIL: attempts.filter((a) => a.verdict === 'FAIL').length,
      ERROR: attempts.filter((a) => a.verdict === 'ERROR').length,
    },
    // Only a run with --guard has it: its attempts carry the guard's summary.
    ...(guard.length > 0 ? { guard } : {}),
    attempts: attempts.map(toSummaryRow),
    configHash: input.configHash,
    // A stop that came after the last attempt finished stopped nothing.
    ended: complete ? 'completed' : input.ended,
    reused: input.reused,
    ...(input.failedFast ? { failedFast: input.failedFast } : {}),
    ...(input.runBudget ? { runBudget: input.runBudget } : {}),
    stats: input.stats,
    ...(input.adaptive ? { adaptive: input.adaptive } : {}),
    ...(input.failurePatterns && input.failurePatterns.length > 0 ? { failurePatterns: input.failurePatterns } : {}),
  };
}
