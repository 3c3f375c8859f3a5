import type { RunStats } from '../engine/aggregate.js';
import type { RunComparison } from '../engine/compare.js';
import type { AttemptResult, Cause, TestCaseResult, Verdict } from '../types/index.js';

/*
 * The shapes the web app renders. The single-file HTML report inlines them (ReportData) and the
 * dashboard API serves them piece by piece, so one UI draws both. Type-only on the web side.
 */

export const REPORT_SCHEMA_VERSION = 1;

export interface TestCount {
  passed: number;
  total: number;
}

export interface RunInfo {
  runId: string;
  taskSet: string;
  createdAt: string;
  finishedAt: string | null;
  planned: number;
  executed: number;
  stoppedEarly: boolean;
  counts: Record<Verdict, number>;
  agents: string[];
}

/** A run as the runs list shows it; `counts` are live while the run goes on. */
export interface RunListItem extends RunInfo {
  /** Attempts recorded so far. */
  attempts: number;
  /** True while the run has not finished. */
  live: boolean;
}

/** One attempt as lists show it. */
export interface AttemptListItem {
  attemptId: string;
  runId: string;
  taskId: string;
  agent: string;
  trial: number;
  verdict: Verdict;
  cause: Cause;
  message: string;
  score: number | null;
  totalMs: number;
  agentMs: number;
  failToPass: TestCount | null;
  passToPass: TestCount | null;
  heldOut: TestCount | null;
  filesChanged: number | null;
  /** input + output tokens; null when the agent reported no usage. */
  tokens: number | null;
  /** Null when unknown (no usage, or no price): never 0 for unknown. */
  costUsd: number | null;
  /** Null where a list does not carry checks (the history index keeps them per attempt). */
  failedChecks: number | null;
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
  heldOut: HeldOutCard[];
  attemptsTotal: number;
  /** Reports written next to the run, as names relative to the run directory. */
  reports: string[];
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

export function listItemOf(a: AttemptResult): AttemptListItem {
  const usage = a.agentResult?.usage;
  return {
    attemptId: a.attemptId,
    runId: a.runId,
    taskId: a.taskId,
    agent: a.agent,
    trial: a.trial,
    verdict: a.verdict,
    cause: a.cause,
    message: a.message,
    score: a.score ?? null,
    totalMs: a.timings.totalMs,
    agentMs: a.timings.agentMs,
    failToPass: a.tests ? { passed: a.tests.failToPass.passed, total: a.tests.failToPass.total } : null,
    passToPass: a.tests ? { passed: a.tests.passToPass.passed, total: a.tests.passToPass.total } : null,
    heldOut: heldOutCount(a),
    filesChanged: a.diff?.filesChanged ?? null,
    tokens: usage ? usage.inputTokens + usage.outputTokens : null,
    costUsd: usage?.costUsd ?? null,
    failedChecks: a.checks.filter((c) => !c.passed).length,
  };
}

/** Held-out counts over both groups the held-out run classifies. */
function heldOutCount(a: AttemptResult): TestCount | null {
  const h = a.heldOut;
  if (!h) return null;
  return { passed: h.failToPass.passed + h.passToPass.passed, total: h.failToPass.total + h.passToPass.total };
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
