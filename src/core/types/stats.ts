import type { Cause } from './attempt.js';

/*
 * The run-statistics contract: what `summary.json`, the history, `show --json`, the dashboard API and
 * report.json carry under `stats`. Computed by aggregateRun in src/domain/stats/run-stats.ts.
 */

/** A proportion with its sample size and a two-sided confidence interval, all in [0, 1]. */
export interface Interval {
  rate: number;
  low: number;
  high: number;
  n: number;
}

export interface Description {
  n: number;
  mean: number;
  median: number;
  /** Sample standard deviation (n − 1 denominator); null for n = 1, where it is undefined. */
  sd: number | null;
  /** 95th percentile by linear interpolation between order statistics (Hyndman & Fan type 7, R/NumPy default). */
  p95: number;
  min: number;
  max: number;
}

export type PairedVerdict = 'A better' | 'B better' | 'not separated';

export type PairedMethod = 'exact sign-flip' | 'monte-carlo sign-flip';

export interface PairedComparison {
  verdict: PairedVerdict;
  /** Mean over shared tasks of (A's pass rate − B's pass rate); null when no task is shared. */
  diff: number | null;
  /** Interval for `diff` from inverting the test; it excludes 0 exactly when the verdict separates. */
  low: number | null;
  high: number | null;
  /** Two-sided p-value for "no difference"; null when no task is shared. */
  pValue: number | null;
  /** Shared tasks with n > 0 for both agents: the sample size of the comparison. */
  tasks: number;
  method: PairedMethod;
  confidence: number;
  /** Set when the comparison could never separate the agents, and why. */
  note?: string;
  /**
   * Set when the sign-flip interval was narrower than the trials behind it allow and was widened to
   * Newcombe's interval on the pooled counts; the verdict then separates only if that excludes 0 too.
   */
  floor?: 'newcombe';
}

export const RUN_STATS_SCHEMA_VERSION = 1;

/** Where tasks with no entry in `taskRepo` are grouped. */
export const UNASSIGNED_REPO = '(unassigned)';

export type RateMethod = 'wilson' | 'clustered-bootstrap';

/**
 * A pass (or other) rate over scored attempts. For one task it is successes / n with a Wilson
 * interval; over several tasks it is the task-weighted mean of per-task rates with a clustered
 * bootstrap interval (see stats/bootstrap.ts for why task-weighted), so it can differ from
 * passes / scored when tasks have different numbers of scored attempts.
 */
export interface RateEstimate {
  rate: number;
  low: number;
  high: number;
  /** Scored attempts behind the rate. */
  n: number;
  /** Tasks behind the rate. */
  tasks: number;
  method: RateMethod;
  /** Set when `wilsonFloor` widened the bootstrap interval to the pooled Wilson interval. */
  floor?: 'wilson';
}

/**
 * Attempts the model provider failed (cause `provider_error`), apart from the other unscored
 * attempts they are also counted among in `harnessErrors`: how many, and how many per provider
 * (the gateway upstream, e.g. `openai`).
 */
export interface ProviderErrors {
  count: number;
  byProvider: Record<string, number>;
}

export interface ErrorRate {
  count: number;
  /** All attempts, harness errors included: the denominator of this rate. */
  attempts: number;
  /** Wilson interval of count / attempts; null when there were no attempts. */
  rate: Interval | null;
}

/** A per-attempt figure that some attempts may lack. `stats.n` attempts had it, `missing` did not. */
export interface Measured {
  missing: number;
  stats: Description | null;
}

export interface TokenStats {
  input: Measured;
  output: Measured;
  cacheRead: Measured;
  cacheWrite: Measured;
  reasoning: Measured;
  /** input + output as the gateway reports them. */
  total: Measured;
  requests: Measured;
}

export interface TaskMean {
  value: number;
  /** Clustered-bootstrap interval over tasks; null for a single task, where there is nothing to resample. */
  low: number | null;
  high: number | null;
  tasks: number;
}

export type PassKEstimate = { k: number; estimable: true; passAtK: TaskMean; passHatK: TaskMean } | { k: number; estimable: false; reason: string };

/**
 * Passes that failed held-out tests the task keeps informational (`held_out.required: false`): the
 * agent satisfied the tests it could see and not the ones it could not. Required held-out tests
 * never show up here, since failing them fails the attempt.
 */
export interface OverfittingStats {
  /** Scored attempts on tasks with informational held-out tests. */
  attempts: number;
  /** Of those, attempts that passed. */
  passes: number;
  /** Of those passes, attempts whose held-out tests failed or could not be used. */
  failedHeldOut: number;
  /** Wilson interval of failedHeldOut / passes; null when nothing passed. */
  rate: Interval | null;
}

export interface AgentStats {
  agent: string;
  attempts: number;
  harnessErrors: ErrorRate;
  /** Of harnessErrors, the provider's (absent from stats written before it existed). */
  providerErrors?: ProviderErrors;
  /** Attempts that count: all attempts minus harness errors. */
  scored: number;
  passes: number;
  /** Tasks attempted, and tasks with at least one scored attempt. */
  tasks: number;
  scoredTasks: number;
  /** Null when every attempt was a harness error. */
  passRate: RateEstimate | null;
  /** Fewest scored attempts on any scored task: the largest k pass@k can be estimated at. */
  minScoredTrials: number | null;
  passK: PassKEstimate[];
  tokens: TokenStats;
  costUsd: Measured;
  latency: { totalMs: Measured; agentMs: Measured };
  turns: Measured;
  toolCalls: Measured;
  causes: Record<Cause, number>;
  /**
   * Present only when some of the agent's scored attempts had informational held-out tests (absent
   * too from stats written before it existed).
   */
  overfitting?: OverfittingStats;
}

export interface CellStats {
  agent: string;
  taskId: string;
  repo: string;
  attempts: number;
  harnessErrors: number;
  /** Scored attempts. */
  n: number;
  passes: number;
  /** Wilson interval of passes / n; null when every attempt was a harness error. */
  interval: Interval | null;
}

export interface AgentComparison extends PairedComparison {
  /** `verdict` names these: 'A better' means agent `a`. */
  a: string;
  b: string;
}

export interface RepoProfile {
  repo: string;
  /** Agents with at least one scored attempt on this repo's tasks. */
  agents: string[];
  tasks: number;
  attempts: number;
  harnessErrors: ErrorRate;
  scored: number;
  /** Pooled over agents, clustered by task. */
  passRate: RateEstimate | null;
  /** Share of scored attempts whose cause is `regression`. */
  regressionRate: RateEstimate | null;
  /** Share of scored attempts whose cause is `tampered` or `policy_violation`. */
  disqualificationRate: RateEstimate | null;
  turns: Measured;
  toolCalls: Measured;
  totalTokens: Measured;
  costUsd: Measured;
}

export interface RepoSection {
  profiles: RepoProfile[];
  /** False when repos were evaluated with different agent sets: their rates then mix agent and repo effects. */
  comparable: boolean;
  note?: string;
}

/** One agent on the tasks of one task set of a suite. */
export interface TaskSetAgentStats {
  agent: string;
  /** Tasks of the set this agent attempted. */
  tasks: number;
  attempts: number;
  harnessErrors: ErrorRate;
  scored: number;
  passes: number;
  /** Clustered by task, like the agent's overall pass rate; null when nothing was scored. */
  passRate: RateEstimate | null;
}

/** A suite run's numbers for one of its task sets (docs/suites.md). */
export interface TaskSetBreakdown {
  taskSet: string;
  tasks: number;
  attempts: number;
  agents: TaskSetAgentStats[];
}

export interface RunStats {
  schemaVersion: typeof RUN_STATS_SCHEMA_VERSION;
  confidence: number;
  seed: number;
  /** The k values requested (after defaulting); each agent says which were estimable. */
  ks: number[];
  attempts: number;
  harnessErrors: ErrorRate;
  /** Of harnessErrors, the provider's (absent from stats written before it existed). */
  providerErrors?: ProviderErrors;
  scored: number;
  agents: AgentStats[];
  cells: CellStats[];
  /** Every pair of agents, names in sorted order. */
  comparisons: AgentComparison[];
  repos: RepoSection;
  /** Suite runs only: per task set (suite order), per agent. */
  byTaskSet?: TaskSetBreakdown[];
  /** Things a reader must know before trusting the numbers above. */
  notes: string[];
}

/** One failure pattern of one agent: how many failed attempts show it, their share (Wilson 95%, of `share.n` attempts it could be read on) and their ids. */
export interface FailurePatternRow {
  id: string;
  label: string;
  count: number;
  share: { rate: number; low: number; high: number; n: number };
  attemptIds: string[];
}

export interface AgentFailurePatterns {
  agent: string;
  failed: number;
  /** Failed attempts without a trajectory (reference agents, graded patches): left out of the session patterns. */
  unrecorded?: number;
  /** Patterns seen at least once, most frequent first. */
  patterns: FailurePatternRow[];
}
