import { aggregateRun, taskSetsOfIds } from '../../domain/stats/index.js';
import { describeAdaptiveStop, type AdaptiveSummary } from '../../engine/index.js';
import { guardCounts } from '../../domain/guard/index.js';
import type { RunBudgetReport } from '../../engine/index.js';
import { attemptDir, slimAttempt } from '../../domain/run-dir/index.js';
import { runCapText } from './run-cap.js';
import { strengthOfRun } from '../strength/index.js';
import type { AttemptResult, RunStats, RunSummary, AgentFailurePatterns } from '../../core/types/index.js';
import { DEFAULT_ARTIFACT_LIMITS, emptyArtifacts, loadAttemptArtifacts, type ArtifactLimits } from './artifacts.js';
import { heldOutCards, listItemOf, REPORT_SCHEMA_VERSION, type AttemptView, type ReportData, type RunInfo, type RunView } from './view.js';

export interface ReportInput {
  runDir: string;
  summary: RunSummary;
  /** Full attempt records of the run, in plan order. */
  attempts: readonly AttemptResult[];
  /** The engine's aggregate; computed here by the same aggregateRun (and `taskRepo`) when absent. */
  stats?: RunStats;
  /** Repo key per task id, as the engine passes it to aggregateRun; only used when `stats` is absent. */
  taskRepo?: ReadonlyMap<string, string>;
}

export interface BuildOptions {
  limits?: ArtifactLimits;
  /**
   * Characters of per-attempt records and evidence (diffs, trajectories, test lists) a report may
   * inline in all. Failing attempts come first: they are the ones a reader opens. Past the budget
   * an attempt keeps its slimmed record and its evidence stays in the attempt directory.
   */
  artifactBudget?: number;
  /** Report files that will sit next to the run, for links. */
  reports?: string[];
}

/** The engine's aggregate, for a run whose summary has none; a suite's task ids give its task sets. */
function recompute(input: ReportInput): RunStats {
  const taskSet = taskSetsOfIds(input.attempts.map((a) => a.taskId));
  return aggregateRun(input.attempts, { ...(input.taskRepo ? { taskRepo: input.taskRepo } : {}), ...(taskSet ? { taskSet } : {}) });
}

export const DEFAULT_ARTIFACT_BUDGET = 24 * 1024 * 1024;

export function runInfoOf(summary: RunSummary, attempts: readonly Pick<AttemptResult, 'agent' | 'agentInfo'>[]): RunInfo {
  const agentInfo = Object.fromEntries(attempts.flatMap((a) => (a.agentInfo ? [[a.agent, a.agentInfo] as const] : [])));
  // summary.json of an adaptive run carries `adaptive` beyond the stable RunSummary.
  const adaptive = (summary as RunSummary & { adaptive?: AdaptiveSummary }).adaptive;
  const runBudget = (summary as RunSummary & { runBudget?: RunBudgetReport }).runBudget;
  return {
    runId: summary.runId,
    taskSet: summary.taskSet,
    createdAt: summary.createdAt,
    finishedAt: summary.finishedAt,
    planned: summary.planned,
    executed: summary.executed,
    stoppedEarly: summary.stoppedEarly,
    counts: summary.counts,
    agents: [...new Set(attempts.map((a) => a.agent))],
    ...(Object.keys(agentInfo).length > 0 ? { agentInfo } : {}),
    ...(adaptive ? { adaptiveStop: describeAdaptiveStop(adaptive) } : {}),
    ...(runBudget ? { runCap: runCapText(runBudget) } : {}),
  };
}

export function runViewOf(input: ReportInput, reports: string[] = []): RunView {
  const items = input.attempts.map(listItemOf);
  const guard = guardCounts(input.attempts);
  return {
    run: runInfoOf(input.summary, input.attempts),
    stats: input.stats ?? (input.attempts.length > 0 ? recompute(input) : null),
    heldOut: heldOutCards(items),
    attemptsTotal: input.attempts.length,
    reports,
    ...(guard.length > 0 ? { guard } : {}),
    // summary.json of this engine carries `failurePatterns` beyond the stable RunSummary.
    ...failurePatternsOf(input.summary),
    ...strengthOfRun(input.runDir, () => input.attempts),
  };
}

function failurePatternsOf(summary: RunSummary): { failurePatterns?: AgentFailurePatterns[] } {
  const patterns = (summary as RunSummary & { failurePatterns?: AgentFailurePatterns[] }).failurePatterns;
  return patterns && patterns.length > 0 ? { failurePatterns: patterns } : {};
}

/** Everything the HTML report and report.json carry: the run view plus every attempt's evidence. */
export async function buildReportData(input: ReportInput, opts: BuildOptions = {}): Promise<ReportData> {
  const limits = opts.limits ?? DEFAULT_ARTIFACT_LIMITS;
  let budget = opts.artifactBudget ?? DEFAULT_ARTIFACT_BUDGET;
  const order = [...input.attempts.keys()].sort((x, y) => rank(input.attempts[x]) - rank(input.attempts[y]) || x - y);
  const views: AttemptView[] = new Array<AttemptView>(input.attempts.length);
  for (const i of order) {
    const attempt = input.attempts[i] as AttemptResult;
    let artifacts = emptyArtifacts('left out to keep the report small; the files are in the attempt directory');
    let record = attempt;
    const recordSize = JSON.stringify(attempt).length;
    if (recordSize <= budget) {
      budget -= recordSize;
      const loaded = await loadAttemptArtifacts(attemptDir(input.runDir, attempt.attemptId), limits);
      const size = JSON.stringify(loaded).length;
      if (size <= budget) {
        artifacts = loaded;
        budget -= size;
      }
    } else {
      // Past the budget even the record is slimmed (no output tails, failing lists or check evidence).
      record = slimAttempt(attempt);
    }
    views[i] = { item: listItemOf(attempt), attempt: record, artifacts };
  }
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generatedAt: new Date().toISOString(),
    view: runViewOf(input, opts.reports),
    attempts: views,
  };
}

/** Failures before errors before passes. */
function rank(a: AttemptResult | undefined): number {
  if (a === undefined) return 3;
  return a.verdict === 'FAIL' ? 0 : a.verdict === 'ERROR' ? 1 : 2;
}
