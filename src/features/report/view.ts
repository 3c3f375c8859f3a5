import type { RunComparison, StrengthResemblance, StrengthSummary } from '../../core/types/index.js';
import type { AttemptRow } from '../../infra/store/index.js';
import {
  attemptFactsOf,
  attemptOutcome,
  type AgentFailurePatterns,
  type AgentInfo,
  type AttemptOutcome,
  type AttemptResult,
  type Cause,
  type GuardAgentCounts,
  type RunHeader,
  type RunStats,
  type TestCaseResult,
  type TestCount,
  type Verdict,
} from '../../core/types/index.js';

/*
 * The shapes the web app renders. The single-file HTML report inlines them (ReportData) and the
 * dashboard API serves them piece by piece, so one UI draws both. Type-only on the web side.
 */

export const REPORT_SCHEMA_VERSION = 1;

export type { TestCount };

export interface RunInfo extends RunHeader {
  /** `validate` for a `crucible validate` run (its tasks judged with nop and oracle, or attacks); absent for `crucible run`. */
  kind?: 'validate';
  counts: Record<Verdict, number>;
  agents: string[];
  /** External agents' version, profile hash and model, by agent spec (absent where unknown, e.g. from the history index). */
  agentInfo?: Record<string, AgentInfo>;
  /** An adaptive run: how it stopped and what it decided, as the terminal prints it (engine/adaptive-run.ts). */
  adaptiveStop?: string;
  /** --max-cost-total / --max-tokens-total: what the run spent against its caps, and which stopped it (report/run-cap.ts). */
  runCap?: string;
}

/** A run as the runs list shows it; `counts` are live while the run goes on. */
export interface RunListItem extends RunInfo {
  /** Attempts recorded so far. */
  attempts: number;
  /** True while the run has not finished. */
  live: boolean;
}

/**
 * One attempt as every list shows it: the terminal table (`run`, `show`), the dashboard's attempts
 * page and the report. Made by listItemOf, from a record or from a history row alike.
 */
export interface AttemptListItem extends AttemptOutcome {
  runId: string;
  score: number | null;
  totalMs: number;
  prepareMs: number;
  agentMs: number;
  verifyMs: number;
  failToPass: TestCount | null;
  passToPass: TestCount | null;
  heldOut: TestCount | null;
  filesChanged: number | null;
  /** input + output tokens; null when the agent reported no usage. */
  tokens: number | null;
  /** Null when unknown (no usage, or no price): never 0 for unknown. */
  costUsd: number | null;
  /** Check results that did not pass (failedCheckCount). */
  failedCheckCount: number;
}

/** Held-out results of one agent in one run: the overfitting signal. */
export interface HeldOutCard {
  agent: string;
  /** Attempts whose held-out tests ran. */
  withHeldOut: number;
  /** Of those, attempts that passed every held-out test. */
  heldOutPassed: number;
  /** Attempts that passed the public tests yet failed a held-out test. */
  passedPublicFailedHeldOut: number;
}

export interface RunView {
  run: RunInfo;
  /** Null only when nothing was scored and nothing could be aggregated. */
  stats: RunStats | null;
  /** The dashboard's: `stats.cells` is left empty and the cells come a page of tasks at a time (`/api/runs/:id/cells`). */
  cellsPaged?: true;
  /** The dashboard's: the run's task ids for the attempts filter, the first MAX_TASK_OPTIONS of them (tasksTruncated says there are more). */
  tasks?: string[];
  tasksTruncated?: true;
  heldOut: HeldOutCard[];
  attemptsTotal: number;
  /** Reports written next to the run, as names relative to the run directory. */
  reports: string[];
  /** Runs with `--guard`: per agent, incidents, blocked commands, stopped and audit-only findings. */
  guard?: GuardAgentCounts[];
  /** Per agent with a failed attempt: what its failed attempts did (docs/failure-patterns.md). */
  failurePatterns?: AgentFailurePatterns[];
  /** The task set's strength the run was graded beside (`validate --strength`, docs/strength.md). */
  strength?: StrengthSummary;
  /** PASSes whose diff adds a surviving mutant's line (docs/strength.md#passes-that-resemble-a-surviving-mutant). */
  resemblances?: StrengthResemblance[];
}

/** One task × agent cell of a run's heatmap. */
export interface CellView {
  agent: string;
  taskId: string;
  n: number;
  passes: number;
  harnessErrors: number;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface AttemptQuery {
  agent?: string;
  taskId?: string;
  verdict?: Verdict;
  cause?: Cause;
  cursor?: string;
  limit?: number;
}

/** Text cut to a budget; `truncated` says the rest is in the run directory. */
export interface BoundedText {
  text: string;
  bytes: number;
  truncated: boolean;
}

export interface TrajectoryEvent {
  index: number;
  /** `message`, `tool_call`, `tool_result`, `error`, … as the trajectory names it. */
  type: string;
  at: string | null;
  role: string | null;
  tool: string | null;
  /** One line for the timeline. */
  title: string;
  /** Longer content, bounded; null when the title says everything. */
  detail: string | null;
  durationMs: number | null;
  tokens: number | null;
}

export interface CommandView {
  at: string;
  argv: string[];
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
}

export interface AttemptArtifacts {
  diff: BoundedText | null;
  trajectory: { events: TrajectoryEvent[]; total: number; truncated: boolean; unreadableLines: number } | null;
  commands: { items: CommandView[]; total: number; truncated: boolean } | null;
  /** Every test case from the JUnit report, in report order. */
  tests: TestCaseResult[] | null;
  heldOutTests: TestCaseResult[] | null;
  /** Set when the artifacts were left out of a report to keep it small. */
  omitted?: string;
}

export interface AttemptView {
  item: AttemptListItem;
  attempt: AttemptResult;
  artifacts: AttemptArtifacts;
}

/** Everything the single-file HTML report (and report.json) carries. */
export interface ReportData {
  schemaVersion: typeof REPORT_SCHEMA_VERSION;
  generatedAt: string;
  view: RunView;
  attempts: AttemptView[];
}

export interface AgentRate {
  n: number;
  passes: number;
  rate: number | null;
  low: number | null;
  high: number | null;
}

/** Two runs side by side: the engine's comparison (the one `crucible compare` prints) plus each run's pass rates. */
export interface CompareView {
  a: RunInfo;
  b: RunInfo;
  comparison: RunComparison;
  rates: Array<{ agent: string; a: AgentRate | null; b: AgentRate | null }>;
  /** The dashboard's: how many cells, regressions and improvements there are, when the lists carry only their first ones. */
  totals?: { cells: number; regressions: number; improvements: number };
}

export interface TrendPointView {
  bucket: string;
  at: string;
  agent: string;
  taskId: string | null;
  n: number;
  passes: number;
  errors: number;
  /** Wilson interval of passes / n; null when n = 0. */
  rate: number | null;
  low: number | null;
  high: number | null;
}

export interface TrendView {
  bucket: 'day' | 'run';
  points: TrendPointView[];
}

/**
 * The one list item of an attempt, from its full or slim record (attempt.json, a run's results) or
 * from its history row, which holds the same facts (attemptFactsOf): both sources give the same item.
 */
export function listItemOf(source: AttemptResult | AttemptRow): AttemptListItem {
  const facts = 'timings' in source ? attemptFactsOf(source) : source;
  const usage = facts.usage;
  return {
    ...attemptOutcome(source),
    runId: source.runId,
    score: facts.score,
    totalMs: facts.totalMs,
    prepareMs: facts.prepareMs,
    agentMs: facts.agentMs,
    verifyMs: facts.verifyMs,
    failToPass: facts.failToPass,
    passToPass: facts.passToPass,
    heldOut: facts.heldOut,
    filesChanged: facts.diff?.filesChanged ?? null,
    tokens: usage ? usage.inputTokens + usage.outputTokens : null,
    costUsd: usage?.costUsd ?? null,
    failedCheckCount: facts.failedCheckCount,
  };
}

export function heldOutCards(items: Iterable<Pick<AttemptListItem, 'agent' | 'heldOut' | 'cause'>>): HeldOutCard[] {
  const cards = new Map<string, HeldOutCard>();
  for (const item of items) {
    if (item.heldOut === null || item.heldOut.total === 0) continue;
    const card = cards.get(item.agent) ?? { agent: item.agent, withHeldOut: 0, heldOutPassed: 0, passedPublicFailedHeldOut: 0 };
    card.withHeldOut += 1;
    const allPassed = item.heldOut.passed === item.heldOut.total;
    if (allPassed) card.heldOutPassed += 1;
    else if (item.cause === 'passed') card.passedPublicFailedHeldOut += 1;
    cards.set(item.agent, card);
  }
  return [...cards.values()].sort((x, y) => (x.agent < y.agent ? -1 : x.agent > y.agent ? 1 : 0));
}
