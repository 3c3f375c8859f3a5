import { BLOCKING } from '../grading/index.js';
import {
  CAUSES,
  UNSCORED_CAUSES,
  RUN_STATS_SCHEMA_VERSION,
  UNASSIGNED_REPO,
  type AgentComparison,
  type AgentStats,
  type AttemptResult,
  type Cause,
  type CellStats,
  type ErrorRate,
  type Measured,
  type OverfittingStats,
  type PassKEstimate,
  type ProviderErrors,
  type RateEstimate,
  type RepoProfile,
  type RepoSection,
  type RunStats,
  type TaskMean,
  type TaskSetBreakdown,
  type TokenStats,
} from '../../core/types/index.js';
import { bootstrapClusterMean, clusteredBootstrap } from './bootstrap.js';
import { describe } from './describe.js';
import { pairedComparison } from './paired.js';
import { passAtK, passHatK, perTask } from './pass-k.js';
import { wilson } from './wilson.js';

/**
 * Turns finished attempts into the numbers a report prints. Rules it enforces:
 * - every rate carries its sample size and a 95% interval, or is null when there is nothing to rate;
 * - harness errors are counted apart and never enter a pass-rate denominator;
 * - agents are compared only through paired comparisons on shared tasks;
 * - token, cost, latency and effort figures describe scored attempts (harness errors excluded),
 *   and always say how many attempts lacked the figure instead of treating it as 0.
 */

export interface AggregateOptions {
  /** Seeds every bootstrap and Monte Carlo draw, so the same attempts always give the same report. */
  seed?: number;
  /** k values for pass@k and pass^k; default [1, most trials of any agent on any task]. */
  ks?: number[];
  confidence?: number;
  /** Repo key per task id, for repo profiles. Tasks missing from it go under UNASSIGNED_REPO. */
  taskRepo?: ReadonlyMap<string, string>;
  /** Task-set name per task id (suite runs): adds `byTaskSet`. Tasks missing from it are left out of it. */
  taskSet?: ReadonlyMap<string, string>;
  /**
   * Never report a pooled interval narrower than the Wilson interval on the pooled counts. The
   * task-clustered percentile bootstrap collapses to zero width when every task is all-pass or
   * all-fail (6 tasks × 3 trials, all passing, gives [1, 1]): resampling tasks that all have the
   * same rate cannot show the uncertainty that remains. Wilson on Σpasses / Σn treats attempts as
   * independent, so it is the least uncertainty the data can carry; taking the union keeps the
   * bootstrap's width when tasks disagree and Wilson's when they do not. The same holds for paired
   * comparisons, floored by Newcombe's interval on the pooled counts. On unless set to false.
   */
  wilsonFloor?: boolean;
}

const ALL_CAUSES: readonly Cause[] = CAUSES;

const DISQUALIFYING: ReadonlySet<Cause> = new Set<Cause>(['tampered', 'policy_violation']);
const DEFAULT_SEED = 1;

/** The cause is the single source of truth for whether an attempt counts and whether it passed. */
// Task errors are unscored like harness errors: a broken task says nothing about the agent.
const isHarnessError = (a: AttemptResult): boolean => UNSCORED_CAUSES.has(a.cause);
const isPass = (a: AttemptResult): boolean => a.cause === 'passed';

interface Context {
  seed: number;
  confidence: number;
  wilsonFloor: boolean;
}

export function aggregateRun(attempts: readonly AttemptResult[], opts: AggregateOptions = {}): RunStats {
  assertUniqueAttempts(attempts);
  const ctx: Context = { seed: opts.seed ?? DEFAULT_SEED, confidence: opts.confidence ?? 0.95, wilsonFloor: opts.wilsonFloor !== false };
  const repoOf = (taskId: string): string => opts.taskRepo?.get(taskId) ?? UNASSIGNED_REPO;
  const ks = resolveKs(opts.ks, attempts);
  const agentNames = uniqueSorted(attempts.map((a) => a.agent));
  const cells = buildCells(attempts, repoOf, ctx);
  const agents = agentNames.map((agent) =>
    agentStats(
      agent,
      attempts.filter((a) => a.agent === agent),
      cells.filter((c) => c.agent === agent),
      ks,
      ctx,
    ),
  );
  const comparisons = compareAll(agentNames, cells, ctx);
  const repos = repoSection(attempts, repoOf, ctx);
  return {
    schemaVersion: RUN_STATS_SCHEMA_VERSION,
    confidence: ctx.confidence,
    seed: ctx.seed,
    ks,
    attempts: attempts.length,
    harnessErrors: errorRate(attempts, ctx),
    providerErrors: providerErrors(attempts),
    scored: attempts.filter((a) => !isHarnessError(a)).length,
    agents,
    cells,
    comparisons,
    repos,
    ...(opts.taskSet ? { byTaskSet: taskSetBreakdown(attempts, opts.taskSet, ctx) } : {}),
    notes: runNotes(attempts, agents, cells, repos, opts.taskRepo !== undefined),
  };
}

function assertUniqueAttempts(attempts: readonly AttemptResult[]): void {
  const seen = new Set<string>();
  for (const a of attempts) {
    // Counting an attempt twice would inflate n and narrow every interval; refuse instead of guessing which to keep.
    if (seen.has(a.attemptId)) throw new Error(`attempt ${a.attemptId} appears more than once`);
    seen.add(a.attemptId);
  }
}

function resolveKs(requested: number[] | undefined, attempts: readonly AttemptResult[]): number[] {
  if (requested !== undefined) {
    for (const k of requested) {
      if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
    }
    return uniqueSortedNumbers(requested);
  }
  const perCell = new Map<string, number>();
  for (const a of attempts) {
    const key = cellKey(a.agent, a.taskId);
    perCell.set(key, (perCell.get(key) ?? 0) + 1);
  }
  const maxTrials = Math.max(1, ...perCell.values());
  return uniqueSortedNumbers([1, maxTrials]);
}

function buildCells(attempts: readonly AttemptResult[], repoOf: (taskId: string) => string, ctx: Context): CellStats[] {
  const groups = groupBy(attempts, (a) => cellKey(a.agent, a.taskId));
  const cells = [...groups.values()].map((group): CellStats => {
    const first = group[0] as AttemptResult;
    const scored = group.filter((a) => !isHarnessError(a));
    const passes = scored.filter(isPass).length;
    return {
      agent: first.agent,
      taskId: first.taskId,
      repo: repoOf(first.taskId),
      attempts: group.length,
      harnessErrors: group.length - scored.length,
      n: scored.length,
      passes,
      interval: wilson(passes, scored.length, ctx.confidence),
    };
  });
  // Sorted so bootstrap resampling sees clusters in the same order whatever order attempts arrived in.
  return cells.sort((x, y) => compare(x.agent, y.agent) || compare(x.taskId, y.taskId));
}

function agentStats(agent: string, attempts: readonly AttemptResult[], cells: readonly CellStats[], ks: readonly number[], ctx: Context): AgentStats {
  const scored = attempts.filter((a) => !isHarnessError(a));
  const scoredCells = cells.filter((c) => c.n > 0);
  const minScoredTrials = scoredCells.length > 0 ? Math.min(...scoredCells.map((c) => c.n)) : null;
  return {
    agent,
    attempts: attempts.length,
    harnessErrors: errorRate(attempts, ctx),
    providerErrors: providerErrors(attempts),
    scored: scored.length,
    passes: scored.filter(isPass).length,
    tasks: cells.length,
    scoredTasks: scoredCells.length,
    passRate: estimateRate(
      cells.map((c) => ({ successes: c.passes, n: c.n })),
      ctx,
    ),
    minScoredTrials,
    passK: ks.map((k) => passKEstimate(k, scoredCells, minScoredTrials, ctx)),
    tokens: tokenStats(scored),
    costUsd: measure(scored, (a) => a.agentResult?.usage?.costUsd),
    latency: {
      totalMs: measure(scored, (a) => a.timings.totalMs),
      agentMs: measure(scored, (a) => a.timings.agentMs),
    },
    turns: measure(scored, (a) => a.agentResult?.turns),
    toolCalls: measure(scored, (a) => a.agentResult?.toolCalls),
    causes: countCauses(attempts),
    ...overfitting(scored, ctx),
  };
}

/** The held-out tests ran (or should have) and their check could not fail the attempt. */
function hasInformationalHeldOut(a: AttemptResult): boolean {
  const check = a.checks.find((c) => c.id === 'held_out');
  if (check === undefined || BLOCKING.has(check.severity)) return false;
  // A task without held-out tests passes the check as skipped, with no held-out run.
  return a.heldOut !== undefined || !check.passed;
}

function overfitting(scored: readonly AttemptResult[], ctx: Context): { overfitting?: OverfittingStats } {
  const informational = scored.filter(hasInformationalHeldOut);
  if (informational.length === 0) return {};
  const passes = informational.filter(isPass);
  const failedHeldOut = passes.filter((a) => a.checks.some((c) => c.id === 'held_out' && !c.passed)).length;
  return { overfitting: { attempts: informational.length, passes: passes.length, failedHeldOut, rate: wilson(failedHeldOut, passes.length, ctx.confidence) } };
}

function passKEstimate(k: number, scoredCells: readonly CellStats[], minScoredTrials: number | null, ctx: Context): PassKEstimate {
  if (minScoredTrials === null) return { k, estimable: false, reason: 'no scored attempts' };
  if (k > minScoredTrials) {
    return {
      k,
      estimable: false,
      reason: `k exceeds the fewest scored attempts on a task (${minScoredTrials})`,
    };
  }
  const counts = scoredCells.map((c) => ({ successes: c.passes, n: c.n }));
  return {
    k,
    estimable: true,
    passAtK: taskMean(perTask(counts, k, passAtK), ctx),
    passHatK: taskMean(perTask(counts, k, passHatK), ctx),
  };
}

function taskMean(values: readonly number[], ctx: Context): TaskMean {
  const boot = bootstrapClusterMean(values, { seed: ctx.seed, confidence: ctx.confidence });
  const value = values.reduce((s, v) => s + v, 0) / values.length;
  const resampled = boot !== null && values.length > 1;
  return {
    value,
    low: resampled ? boot.low : null,
    high: resampled ? boot.high : null,
    tasks: values.length,
  };
}

/** Wilson for a single task, clustered bootstrap when pooling tasks; null when nothing was scored. */
function estimateRate(clusters: ReadonlyArray<{ successes: number; n: number }>, ctx: Context): RateEstimate | null {
  const scored = clusters.filter((c) => c.n > 0);
  const only = scored[0];
  if (only === undefined) return null;
  if (scored.length === 1) {
    const w = wilson(only.successes, only.n, ctx.confidence);
    return w === null ? null : { rate: w.rate, low: w.low, high: w.high, n: w.n, tasks: 1, method: 'wilson' };
  }
  const pooled = clusteredBootstrap(scored, { seed: ctx.seed, confidence: ctx.confidence });
  if (pooled === null) return null;
  const estimate: RateEstimate = {
    rate: pooled.rate,
    low: pooled.low,
    high: pooled.high,
    n: pooled.n,
    tasks: pooled.clusters,
    method: 'clustered-bootstrap',
  };
  if (!ctx.wilsonFloor) return estimate;
  const floor = wilson(
    scored.reduce((s, c) => s + c.successes, 0),
    pooled.n,
    ctx.confidence,
  );
  if (floor === null || (floor.low >= estimate.low && floor.high <= estimate.high)) return estimate;
  return { ...estimate, low: Math.min(estimate.low, floor.low), high: Math.max(estimate.high, floor.high), floor: 'wilson' };
}

function errorRate(attempts: readonly AttemptResult[], ctx: Context): ErrorRate {
  const count = attempts.filter(isHarnessError).length;
  return { count, attempts: attempts.length, rate: wilson(count, attempts.length, ctx.confidence) };
}

/** Per provider as the gateway named it; an attempt with no gateway record is under its spec's provider. */
function providerErrors(attempts: readonly AttemptResult[]): ProviderErrors {
  const byProvider: Record<string, number> = {};
  let count = 0;
  for (const a of attempts) {
    if (a.cause !== 'provider_error') continue;
    count++;
    const name = a.agentResult?.provider?.name || (a.agent.includes(':') ? (a.agent.split(':')[0] as string) : 'unknown');
    byProvider[name] = (byProvider[name] ?? 0) + 1;
  }
  return { count, byProvider };
}

function tokenStats(scored: readonly AttemptResult[]): TokenStats {
  const usage = (a: AttemptResult) => a.agentResult?.usage;
  return {
    input: measure(scored, (a) => usage(a)?.inputTokens),
    output: measure(scored, (a) => usage(a)?.outputTokens),
    cacheRead: measure(scored, (a) => usage(a)?.cacheReadTokens),
    cacheWrite: measure(scored, (a) => usage(a)?.cacheWriteTokens),
    reasoning: measure(scored, (a) => usage(a)?.reasoningTokens),
    total: measure(scored, totalTokens),
    requests: measure(scored, (a) => usage(a)?.requests),
  };
}

function totalTokens(a: AttemptResult): number | undefined {
  const u = a.agentResult?.usage;
  return u === undefined ? undefined : u.inputTokens + u.outputTokens;
}

/** Describes the attempts that have the figure; the rest are counted as missing, never as 0. */
function measure(attempts: readonly AttemptResult[], pick: (a: AttemptResult) => number | undefined): Measured {
  const values: number[] = [];
  for (const a of attempts) {
    const v = pick(a);
    if (v !== undefined && Number.isFinite(v)) values.push(v);
  }
  return { missing: attempts.length - values.length, stats: describe(values) };
}

function countCauses(attempts: readonly AttemptResult[]): Record<Cause, number> {
  const counts = Object.fromEntries(ALL_CAUSES.map((c) => [c, 0])) as Record<Cause, number>;
  for (const a of attempts) counts[a.cause] += 1;
  return counts;
}

function compareAll(agents: readonly string[], cells: readonly CellStats[], ctx: Context): AgentComparison[] {
  const outcomes = (agent: string) => cells.filter((c) => c.agent === agent).map((c) => ({ taskId: c.taskId, successes: c.passes, n: c.n }));
  const comparisons: AgentComparison[] = [];
  agents.forEach((a, i) => {
    for (const b of agents.slice(i + 1)) {
      const result = pairedComparison(outcomes(a), outcomes(b), { seed: ctx.seed, confidence: ctx.confidence, newcombeFloor: ctx.wilsonFloor });
      comparisons.push({ a, b, ...result });
    }
  });
  return comparisons;
}

function repoSection(attempts: readonly AttemptResult[], repoOf: (taskId: string) => string, ctx: Context): RepoSection {
  const byRepo = groupBy(attempts, (a) => repoOf(a.taskId));
  const profiles = [...byRepo.entries()].sort(([x], [y]) => compare(x, y)).map(([repo, group]) => repoProfile(repo, group, ctx));
  const agentSets = new Set(profiles.map((p) => JSON.stringify(p.agents)));
  if (agentSets.size <= 1) return { profiles, comparable: true };
  const listing = profiles.map((p) => `${p.repo}: ${p.agents.join(', ') || 'none'}`).join('; ');
  return {
    profiles,
    comparable: false,
    note: `repos were evaluated with different agent sets (${listing}); do not rank repos against each other`,
  };
}

function repoProfile(repo: string, attempts: readonly AttemptResult[], ctx: Context): RepoProfile {
  const scored = attempts.filter((a) => !isHarnessError(a));
  const tasks = groupBy(scored, (a) => a.taskId);
  // One cluster per task, agents pooled: trials of a task share its difficulty whoever attempts it.
  const taskIds = [...tasks.keys()].sort(compare);
  const rateOf = (hit: (a: AttemptResult) => boolean): RateEstimate | null =>
    estimateRate(
      taskIds.map((id) => {
        const group = tasks.get(id) ?? [];
        return { successes: group.filter(hit).length, n: group.length };
      }),
      ctx,
    );
  return {
    repo,
    agents: uniqueSorted(scored.map((a) => a.agent)),
    tasks: uniqueSorted(attempts.map((a) => a.taskId)).length,
    attempts: attempts.length,
    harnessErrors: errorRate(attempts, ctx),
    scored: scored.length,
    passRate: rateOf(isPass),
    regressionRate: rateOf((a) => a.cause === 'regression'),
    disqualificationRate: rateOf((a) => DISQUALIFYING.has(a.cause)),
    turns: measure(scored, (a) => a.agentResult?.turns),
    toolCalls: measure(scored, (a) => a.agentResult?.toolCalls),
    totalTokens: measure(scored, totalTokens),
    costUsd: measure(scored, (a) => a.agentResult?.usage?.costUsd),
  };
}

/**
 * The task-set map of a suite run, read back from its task ids (`<set>/<task>`; a plain task id
 * cannot contain `/`), for statistics recomputed from recorded attempts. Undefined for a run of
 * one task set, so its statistics have no `byTaskSet`, as the engine's have none.
 */
export function taskSetsOfIds(taskIds: Iterable<string>): Map<string, string> | undefined {
  const ids = [...taskIds];
  if (ids.length === 0 || !ids.every((id) => id.includes('/'))) return undefined;
  return new Map(ids.map((id) => [id, id.slice(0, id.indexOf('/'))]));
}

/** Per task set, per agent: the agent's pass rate on that set's tasks, clustered by task as everywhere else. */
function taskSetBreakdown(attempts: readonly AttemptResult[], taskSetOf: ReadonlyMap<string, string>, ctx: Context): TaskSetBreakdown[] {
  const inSet = attempts.filter((a) => taskSetOf.has(a.taskId));
  // Suite order (the plan's), not alphabetical: the reader wrote the sets in that order.
  const bySet = groupBy(inSet, (a) => taskSetOf.get(a.taskId) as string);
  return [...bySet.entries()].map(([taskSet, group]) => ({
    taskSet,
    tasks: uniqueSorted(group.map((a) => a.taskId)).length,
    attempts: group.length,
    agents: uniqueSorted(group.map((a) => a.agent)).map((agent) => {
      const mine = group.filter((a) => a.agent === agent);
      const scored = mine.filter((a) => !isHarnessError(a));
      const byTask = groupBy(scored, (a) => a.taskId);
      return {
        agent,
        tasks: uniqueSorted(mine.map((a) => a.taskId)).length,
        attempts: mine.length,
        harnessErrors: errorRate(mine, ctx),
        scored: scored.length,
        passes: scored.filter(isPass).length,
        passRate: estimateRate(
          [...byTask.keys()].sort(compare).map((id) => {
            const g = byTask.get(id) ?? [];
            return { successes: g.filter(isPass).length, n: g.length };
          }),
          ctx,
        ),
      };
    }),
  }));
}

function runNotes(
  attempts: readonly AttemptResult[],
  agents: readonly AgentStats[],
  cells: readonly CellStats[],
  repos: RepoSection,
  hasRepoMap: boolean,
): string[] {
  const notes: string[] = [];
  const mismatched = attempts.filter(verdictDisagreesWithCause).length;
  if (mismatched > 0) {
    notes.push(`${mismatched} attempt(s) have a verdict that disagrees with their cause; they were counted by cause`);
  }
  const allErrored = agents.filter((a) => a.passRate === null && a.attempts > 0);
  if (allErrored.length > 0) {
    const why = (a: AgentStats): string => unscoredCauses(a.causes);
    notes.push(`no scored attempts, so no pass rate, for: ${allErrored.map((a) => `${a.agent} (${why(a)})`).join(', ')}`);
  }
  const scoredTaskSets = agents.filter((a) => a.passRate !== null).map((a) => scoredTaskKey(a.agent, cells));
  const taskSets = new Set(scoredTaskSets);
  if (taskSets.size > 1) {
    notes.push('agents were scored on different task sets, so their pooled pass rates are not comparable; rank them only by the paired comparisons');
  }
  if (hasRepoMap && cells.some((c) => c.repo === UNASSIGNED_REPO)) {
    notes.push(`some tasks have no repo key and are profiled under ${UNASSIGNED_REPO}`);
  }
  if (repos.note !== undefined) notes.push(repos.note);
  return notes;
}

/** `3 provider_error, 1 harness_error`: what made an agent's attempts unscored. */
function unscoredCauses(causes: Record<Cause, number>): string {
  return [...UNSCORED_CAUSES]
    .filter((c) => causes[c] > 0)
    .map((c) => `${causes[c]} ${c}`)
    .join(', ');
}

/** One string per distinct set of scored tasks, to tell whether agents faced the same tasks. */
function scoredTaskKey(agent: string, cells: readonly CellStats[]): string {
  return JSON.stringify(cells.filter((c) => c.agent === agent && c.n > 0).map((c) => c.taskId));
}

/** Assumes grading maps passed ⇔ PASS and harness_error ⇔ ERROR; anything else is worth a reader's attention. */
function verdictDisagreesWithCause(a: AttemptResult): boolean {
  return (a.verdict === 'PASS') !== (a.cause === 'passed') || (a.verdict === 'ERROR') !== UNSCORED_CAUSES.has(a.cause);
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [item]);
    else group.push(item);
  }
  return groups;
}

function cellKey(agent: string, taskId: string): string {
  return JSON.stringify([agent, taskId]);
}

/** Code-point order: locale-independent, so the same run sorts the same on every machine. */
function compare(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

function uniqueSorted(values: readonly string[]): string[] {
  return [...new Set(values)].sort(compare);
}

function uniqueSortedNumbers(values: readonly number[]): number[] {
  return [...new Set(values)].sort((x, y) => x - y);
}
