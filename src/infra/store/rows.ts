import type { AttemptFacts, AttemptPlan, AttemptResult, Cause, CheckResult, RunHeader, TestCount, UsageFacts, Verdict } from '../../core/types/index.js';

/* The shapes the store takes in and hands out. Timestamps are UTC ISO strings. */

export type VerdictCounts = Record<Verdict, number>;

/** What a run was for: `crucible run` (and resume), or `crucible validate` (its directory is `<state>/validate/`). */
export type HistoryRunKind = 'run' | 'validate';

/** What the engine knows when a run starts. Recording it again updates these fields only. */
export interface RunMeta {
  /** Default `run`. */
  kind?: HistoryRunKind;
  runId: string;
  taskSet: string;
  createdAt: string;
  planned: number;
  /** Agent specs in plan order. */
  agents: readonly string[];
  configHash?: string;
}

export interface RunFinish {
  finishedAt: string;
  executed: number;
  stoppedEarly: boolean;
  counts: VerdictCounts;
  /** Aggregate statistics as the stats module made them; stored as JSON, read back as `unknown`. */
  stats?: object;
}

/** Facts about an attempt that are not in AttemptResult but that history queries group by. */
export interface AttemptExtra {
  repoKey?: string;
  category?: string;
  difficulty?: string;
}

export interface AttemptEntry {
  attempt: AttemptResult;
  extra?: AttemptExtra;
}

export interface RunRow extends RunHeader {
  kind: HistoryRunKind;
  configHash: string | null;
  agents: string[];
  /** As finishRun recorded them; null while the run has not finished. */
  counts: VerdictCounts | null;
  /** Tallied from the attempts recorded so far, so it is live while the run goes on. */
  recorded: { attempts: number } & VerdictCounts;
}

export interface RunDetail extends RunRow {
  /** What finishRun stored as `stats`, or null. */
  stats: unknown;
}

export type { TestCount };

/** Null `costUsd` when the model has no known price: unknown, not free. */
export type UsageRow = UsageFacts;

/**
 * One attempt as lists show it: the attempts table's columns, written from the record by
 * attemptColumns (attempt-columns.ts) and read back as the record's facts (attemptFactsOf gives the
 * same from attempt.json). The full record is in AttemptDetail.
 */
export interface AttemptRow extends Omit<AttemptPlan, 'index'>, AttemptFacts {
  /** AttemptPlan's `index`: the attempt's position in the plan. */
  planIndex: number;
  verdict: Verdict;
  cause: Cause;
  message: string;
  sandbox: string;
  startedAt: string;
  finishedAt: string;
  repoKey: string | null;
  category: string | null;
  difficulty: string | null;
}

export interface AttemptDetail extends AttemptRow {
  /** attempt.json exactly as recorded. */
  attempt: AttemptResult;
  checks: CheckResult[];
}

export type ResolvedId = { kind: 'run'; runId: string } | { kind: 'attempt'; attemptId: string; runId: string };

/** Counts for pass rates: `n` excludes harness errors, which are counted in `errors` instead. */
export interface Tally {
  n: number;
  passes: number;
  errors: number;
  /** Of `errors`, the attempts the model provider failed (cause `provider_error`). */
  providerErrors: number;
}

export interface TrendPoint extends Tally {
  /** `YYYY-MM-DD` (UTC) for day buckets, the run id for run buckets. */
  bucket: string;
  /** Start of the day, or the run's createdAt: a time axis for either kind of bucket. */
  at: string;
  agent: string;
  /** Set only when the query asked for `perTask`. */
  taskId: string | null;
}

/** One agent's held-out results in a run: attempts whose held-out tests ran, and how they went. */
export interface HeldOutTally {
  agent: string;
  withHeldOut: number;
  heldOutPassed: number;
  /** Passed the public tests (cause `passed`) yet failed a held-out test. */
  passedPublicFailedHeldOut: number;
}

export interface CellRow extends Tally {
  agent: string;
  taskId: string;
}
