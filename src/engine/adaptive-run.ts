import { adaptiveState, nextTrials, type AdaptiveState, type AdaptiveTarget, type GateSequence, type TrialRecord } from '../domain/stats/index.js';
import { UNSCORED_CAUSES, type AttemptPlan, type AttemptResult } from '../core/types/index.js';
import type { FailedFast, RunEnd } from './attempt-loop.js';
import type { AdaptiveRunOptions } from '../domain/run-dir/index.js';

export type { AdaptiveRunOptions };

/** Why an adaptive run stopped, in summary.json as `adaptive`. */
export type AdaptiveStop = 'target met' | 'futile' | 'budget spent' | 'trials exhausted' | 'interrupted' | 'fail-fast';

export interface AdaptiveSummary {
  target: AdaptiveTarget;
  /** The attempt budget in force: `--max-attempts`, or every planned attempt. */
  maxAttempts: number;
  stopped: AdaptiveStop;
  /** Attempts the design counted against the budget (broken tasks' task errors are not). */
  spent: number;
  /** With a dollar budget: the cap, and what the run's attempts cost by the gateway's metering. */
  cost?: { maxUsd: number; spentUsd: number };
  /** Which budget stopped the run, when one did. */
  budget?: 'attempts' | 'cost';
  comparisons: Array<{
    a: string;
    b: string;
    verdict: string;
    eValue: number;
    threshold: number;
    wins: number;
    losses: number;
    pairs: number;
    futile?: boolean;
  }>;
  agents: Array<{ agent: string; low?: number; high?: number; rounds?: number; open: boolean; futile?: boolean; gate?: AdaptiveGateSummary }>;
}

/** `gate --adaptive`: one agent's anytime test against its baseline (stats/gate-sequential.ts). */
export interface AdaptiveGateSummary {
  decision: 'pass' | 'fail' | 'open';
  baselineRate: number;
  reference: number;
  eForPass: number;
  eForFail: number;
  threshold: number;
  steps: number;
  estimate: number | null;
}

export interface AdaptiveLoop {
  options: AdaptiveRunOptions;
  /** Every attempt the plan allows (tasks × agents × `--runs`, the most trials per task and agent). */
  attempts: readonly AttemptPlan[];
  agents: readonly string[];
  /** Tasks the design may use, in plan order (broken ones left out). */
  taskIds: readonly string[];
  /** Finished attempts so far, by attempt id; the loop reads it after every batch. */
  results: ReadonlyMap<string, AttemptResult>;
  /** Pair sets per look: plan.json's `adaptive.batch` (a local run's concurrency), the same locally and on the queue. */
  batch: number;
  /** The run's dollar cap (`--max-cost-total`), when it has one: the adaptive budget in dollars. */
  maxCostUsd?: number;
  /** Runs one batch through the ordinary attempt loop (checkpoint, history, interrupts). */
  runBatch(attempts: AttemptPlan[]): Promise<{ ended: RunEnd; failedFast?: FailedFast }>;
}

/**
 * Runs the adaptive design: look at the finished attempts, run the trials the allocation rule asks
 * for, look again, until the target is met or the budget is spent.
 *
 * Every look is taken at a batch's end, on the attempts of the batches before it: `looked` holds
 * those, never an attempt of a batch still running. A resumed run replays the looks from the first
 * on the attempts already finished (a look's batch is a function of the looks before it), finishes
 * the batch the interruption cut short, and only then looks again: so however often and wherever a
 * run is killed, given the same seed and outcomes it starts exactly the attempts, in the same order
 * of decisions, that an uninterrupted run starts, and the stopping rule is checked before any new
 * pair (issue 43: a resume that looked at half a batch started pairs past the stopping point).
 */
export async function runAdaptive(loop: AdaptiveLoop): Promise<{ ended: RunEnd; failedFast?: FailedFast; adaptive: AdaptiveSummary }> {
  const byCell = new Map(loop.attempts.map((a) => [cellKey(a.taskId, a.agent, a.trial), a]));
  const allowed = new Set(loop.taskIds);
  const budget: Budget = {
    maxAttempts: Math.min(loop.options.maxAttempts ?? loop.attempts.length, loop.attempts.length),
    ...(loop.maxCostUsd !== undefined ? { maxCostUsd: loop.maxCostUsd } : {}),
  };
  const looked = new Map<string, AttemptResult>();
  for (;;) {
    const records = trialRecords(looked, allowed);
    const spent = records.length;
    const state = adaptiveState(records, loop.agents, loop.taskIds, loop.options.target, budget.maxAttempts - spent);
    const cost = costSoFar(looked);
    const summary = (stopped: AdaptiveStop, by?: 'attempts' | 'cost'): AdaptiveSummary =>
      summarize(loop.options, budget, state, stopped, spent, cost.spentUsd, by);
    if (state.met) return { ended: 'completed', adaptive: summary('target met') };
    if (state.futile) return { ended: 'completed', adaptive: summary('futile') };
    if (budget.maxCostUsd !== undefined && cost.spentUsd >= budget.maxCostUsd) return { ended: 'completed', adaptive: summary('budget spent', 'cost') };
    const batch: AttemptPlan[] = [];
    let exhausted = false;
    let stoppedBy: 'attempts' | 'cost' | undefined;
    let projectedUsd = cost.spentUsd;
    for (const step of nextTrials(records, state, loop.taskIds, loop.batch)) {
      const cells = step.agents.map((agent) => byCell.get(cellKey(step.taskId, agent, step.trial)));
      // A task at its --runs trials cannot give another pair; half a pair would never count.
      if (cells.some((c) => c === undefined || looked.has(c.attemptId))) {
        exhausted = true;
        continue;
      }
      if (spent + batch.length + cells.length > budget.maxAttempts) {
        stoppedBy = 'attempts';
        break;
      }
      // A trial is started only when what it is expected to cost (the dearest finished attempt of
      // its agent) still fits under the cap: the run stops short of the cap instead of running past it.
      const next = projectedUsd + step.agents.reduce((sum, agent) => sum + (cost.dearest.get(agent) ?? cost.dearestAny), 0);
      if (budget.maxCostUsd !== undefined && next > budget.maxCostUsd) {
        stoppedBy = 'cost';
        break;
      }
      projectedUsd = next;
      batch.push(...(cells as AttemptPlan[]));
    }
    if (batch.length === 0)
      return { ended: 'completed', adaptive: exhausted && !stoppedBy ? summary('trials exhausted') : summary('budget spent', stoppedBy ?? 'attempts') };
    // On a resume, what a look asks for may have finished before: only the rest of its batch runs.
    const pending = batch.filter((a) => !loop.results.has(a.attemptId));
    if (pending.length > 0) {
      const { ended, failedFast } = await loop.runBatch(pending);
      if (ended !== 'completed') {
        const after = trialRecords(loop.results, allowed);
        const last = adaptiveState(after, loop.agents, loop.taskIds, loop.options.target, budget.maxAttempts - after.length);
        return {
          ended,
          ...(failedFast ? { failedFast } : {}),
          adaptive: summarize(loop.options, budget, last, ended, after.length, costSoFar(loop.results).spentUsd),
        };
      }
      // The run loop started nothing (its own caps halted it): looking again would ask for the same batch forever.
      if (pending.every((a) => !loop.results.has(a.attemptId))) {
        const after = trialRecords(loop.results, allowed);
        const last = adaptiveState(after, loop.agents, loop.taskIds, loop.options.target, budget.maxAttempts - after.length);
        return {
          ended,
          adaptive: summarize(
            loop.options,
            budget,
            last,
            'budget spent',
            after.length,
            costSoFar(loop.results).spentUsd,
            budget.maxCostUsd !== undefined ? 'cost' : undefined,
          ),
        };
      }
    }
    for (const a of batch) {
      const result = loop.results.get(a.attemptId);
      if (result) looked.set(a.attemptId, result);
    }
  }
}

interface Budget {
  maxAttempts: number;
  maxCostUsd?: number;
}

/** What the finished attempts cost by the gateway's metering, and the dearest one per agent (the projection of the next). */
function costSoFar(results: ReadonlyMap<string, AttemptResult>): { spentUsd: number; dearest: Map<string, number>; dearestAny: number } {
  let spentUsd = 0;
  let dearestAny = 0;
  const dearest = new Map<string, number>();
  for (const r of results.values()) {
    const usd = r.agentResult?.usage?.costUsd ?? 0;
    spentUsd += usd;
    dearestAny = Math.max(dearestAny, usd);
    dearest.set(r.agent, Math.max(dearest.get(r.agent) ?? 0, usd));
  }
  return { spentUsd, dearest, dearestAny };
}

function trialRecords(results: ReadonlyMap<string, AttemptResult>, allowed: ReadonlySet<string>): TrialRecord[] {
  const out: TrialRecord[] = [];
  for (const r of results.values()) {
    if (!allowed.has(r.taskId)) continue;
    out.push({ taskId: r.taskId, agent: r.agent, trial: r.trial, passed: UNSCORED_CAUSES.has(r.cause) ? null : r.verdict === 'PASS' });
  }
  return out;
}

const cellKey = (taskId: string, agent: string, trial: number): string => `${taskId}\u0000${agent}\u0000${trial}`;

function summarize(
  options: AdaptiveRunOptions,
  budget: Budget,
  state: AdaptiveState,
  stopped: AdaptiveStop,
  spent: number,
  spentUsd: number,
  by?: 'attempts' | 'cost',
): AdaptiveSummary {
  return {
    target: options.target,
    maxAttempts: budget.maxAttempts,
    stopped,
    spent,
    ...(budget.maxCostUsd !== undefined ? { cost: { maxUsd: budget.maxCostUsd, spentUsd: Math.round(spentUsd * 1e6) / 1e6 } } : {}),
    ...(by ? { budget: by } : {}),
    comparisons: state.comparisons.map((c) => ({
      a: c.a,
      b: c.b,
      verdict: c.test.verdict,
      eValue: c.test.eValue,
      threshold: c.test.threshold,
      wins: c.test.wins,
      losses: c.test.losses,
      pairs: c.pairs,
      ...(c.futile ? { futile: true } : {}),
    })),
    agents: state.agents.map((s) => ({
      agent: s.agent,
      ...(s.sequence ? { low: s.sequence.low, high: s.sequence.high, rounds: s.sequence.t } : {}),
      open: s.open,
      ...(s.futile ? { futile: true } : {}),
      ...(s.gate ? { gate: gateSummary(s.gate) } : {}),
    })),
  };
}

function gateSummary(g: GateSequence): AdaptiveGateSummary {
  const round = (x: number): number => Number(x.toPrecision(6));
  return {
    decision: g.decision,
    baselineRate: round(g.baselineRate),
    reference: round(g.reference),
    eForPass: round(g.eForPass),
    eForFail: round(g.eForFail),
    threshold: g.threshold,
    steps: g.steps,
    estimate: g.estimate === null ? null : round(g.estimate),
  };
}

/** One line for the terminal and the reports: how the run stopped and what it decided. */
export function describeAdaptiveStop(a: AdaptiveSummary): string {
  const why =
    a.stopped === 'target met'
      ? a.target.kind === 'separate'
        ? 'target met: every pair of agents separated'
        : a.target.kind === 'gate'
          ? 'target met: every gate decided'
          : `target met: every pass-rate interval at most ${a.target.width} wide`
      : a.stopped === 'futile'
        ? `futile: what is left of the budget (${a.maxAttempts - a.spent} attempts) cannot decide what is still open`
        : a.stopped === 'budget spent'
          ? a.budget === 'cost' && a.cost
            ? `budget spent (--max-cost-total $${a.cost.maxUsd}, $${a.cost.spentUsd} spent) before the target was met`
            : `budget spent (--max-attempts ${a.maxAttempts}) before the target was met`
          : a.stopped === 'trials exhausted'
            ? 'every open task reached its --runs trials before the target was met'
            : a.stopped;
  const parts = a.comparisons.map(
    (c) => `${c.a} vs ${c.b}: ${c.verdict} (e-value ${formatE(c.eValue)} vs ${formatE(c.threshold)}, ${c.wins}–${c.losses} on discordant pairs)`,
  );
  const widths = a.agents.flatMap((s) =>
    s.low !== undefined && s.high !== undefined ? [`${s.agent}: [${pct(s.low)}, ${pct(s.high)}] after ${s.rounds} rounds`] : [],
  );
  const gates = a.agents.flatMap((s) => (s.gate ? [`${s.agent}: ${describeGateDecision(s.gate)}`] : []));
  return [`adaptive: stopped, ${why}, after ${a.spent} of at most ${a.maxAttempts} attempts`, ...parts, ...widths, ...gates].join('\n  ');
}

/** One agent's anytime gate test in words: the decision, the e-values against their threshold, the rates. */
export function describeGateDecision(g: AdaptiveGateSummary): string {
  const decided =
    g.decision === 'pass'
      ? `decided pass: pass rate not below ${pct(g.reference)} (baseline ${pct(g.baselineRate)} − margin), e-value ${formatE(g.eForPass)} ≥ ${formatE(g.threshold)}`
      : g.decision === 'fail'
        ? `decided fail: pass rate below ${pct(g.reference)} (baseline ${pct(g.baselineRate)} − margin), e-value ${formatE(g.eForFail)} ≥ ${formatE(g.threshold)}`
        : `not decided: e-values ${formatE(g.eForPass)} (pass) and ${formatE(g.eForFail)} (fail), both under ${formatE(g.threshold)}, against ${pct(g.reference)} (baseline ${pct(g.baselineRate)} − margin)`;
  return `${decided}, after ${g.steps} scored draws${g.estimate === null ? '' : `, estimated rate ${pct(g.estimate)}`}`;
}

const formatE = (e: number): string => (e >= 1000 ? e.toExponential(1) : e.toFixed(e >= 100 ? 0 : 1));
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
