import type { AttemptResult, GuardMode, Verdict } from './attempt.js';
import { attemptOutcome, type AttemptOutcome } from './attempt-views.js';

export const RUN_SCHEMA_VERSION = 1;

/** What every view of a run starts with: summary.json, the history's run row and the report's run card. */
export interface RunHeader {
  runId: string;
  taskSet: string;
  createdAt: string;
  /** Null while the run has not finished (a history row of a live or killed run). */
  finishedAt: string | null;
  planned: number;
  executed: number;
  stoppedEarly: boolean;
}

/** The stable part of `summary.json` and `crucible run --json`; scripts may rely on these fields. */
export interface RunSummary extends RunHeader {
  schemaVersion: typeof RUN_SCHEMA_VERSION;
  finishedAt: string;
  counts: Record<Verdict, number>;
  /** Runs with `--guard` only: what the online guard saw, per agent (absent for a run without it). */
  guard?: GuardAgentCounts[];
  attempts: AttemptSummaryRow[];
}

/**
 * Per agent, what the online guard saw over a run's attempts (src/domain/guard/counts.ts computes it):
 * summary.json, `show --json` and every report carry the same counts.
 */
export interface GuardAgentCounts {
  agent: string;
  mode: GuardMode;
  /** Attempts the guard watched. */
  attempts: number;
  /** Attempts with at least one finding (an incident.json). */
  incidents: number;
  /** Findings over all attempts. */
  findings: number;
  /** Commands refused before they ran. */
  blocked: number;
  /** Attempts whose agent enforce stopped. */
  stopped: number;
  /** Findings recorded and let run. */
  auditOnly: number;
  /** Fastest and slowest time-to-detection over the findings, in ms. */
  detectionMs?: { min: number; max: number };
}

export interface AttemptSummaryRow extends AttemptOutcome {
  /** Path of the attempt's directory, relative to the run directory. */
  dir: string;
}

export function toSummaryRow(a: AttemptResult): AttemptSummaryRow {
  return { ...attemptOutcome(a), dir: `attempts/${a.attemptId}` };
}
