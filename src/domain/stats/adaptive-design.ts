import { bettingConfidenceSequence, type ConfidenceSequence } from './betting-cs.js';
import { gateFutile, gateSequence, type GateSequence, type GateTarget } from './gate-sequential.js';
import { sequentialSignTest, type SequentialSignTest } from './sequential-sign.js';
import { assertConfidence } from './validate.js';

/** One finished trial: the k-th (0-based) of `agent` on `taskId`; passed null when it was not scored. */
export interface TrialRecord {
  taskId: string;
  agent: string;
  trial: number;
  passed: boolean | null;
}

/** What an adaptive run is for: separate every pair of agents, or pin each pass rate to a width. */
export type AdaptiveTarget = { kind: 'separate'; confidence: number } | { kind: 'width'; width: number; confidence: number } | GateTarget;

export interface ComparisonState {
  a: string;
  b: string;
  test: SequentialSignTest;
  /** Completed pairs (both trials scored) per task. */
  pairs: number;
  open: boolean;
  /** Open, but the remaining budget cannot separate the pair any more: it gets no more trials. */
  futile?: boolean;
}

export interface AgentState {
  agent: string;
  /** Over complete rounds (every task tried once more); present for the width target. */
  sequence?: ConfidenceSequence;
  /** Present for the gate target: the agent's anytime test against its baseline. */
  gate?: GateSequence;
  open: boolean;
  futile?: boolean;
}

export interface AdaptiveState {
  target: AdaptiveTarget;
  comparisons: ComparisonState[];
  agents: AgentState[];
  /** True when the target is met: every comparison decided, or every interval narrow enough. */
  met: boolean;
  /** Not met, but every open question is futile: the remaining budget cannot decide it. */
  futile: boolean;
}

/** The next trials to run: trial `trial` of each agent on `taskId`, scheduled together as one pair set. */
export interface TrialStep {
  taskId: string;
  agents: string[];
  trial: number;
}

/**
 * The adaptive design's state after the finished trials: the anytime-valid test of every pair of
 * agents (sequentialSignTest) or the confidence sequence of every agent (bettingConfidenceSequence),
 * and which of them is still open. Pure: an interrupted run rebuilds exactly this from its attempts.
 */
export function adaptiveState(
  records: readonly TrialRecord[],
  agents: readonly string[],
  taskIds: readonly string[],
  target: AdaptiveTarget,
  /** Attempts left in the budget; with it, questions the rest cannot decide are closed as futile. */
  remaining?: number,
): AdaptiveState {
  assertTarget(target);
  if (target.kind === 'gate') {
    const agentStates = target.agents.map((gated) => {
      const gate = gateSequence(records, gated, target.tasks, target);
      const futile = remaining !== undefined && gateFutile(gate, remaining);
      return { agent: gated.agent, gate, open: gate.decision === 'open' && !futile, ...(futile ? { futile } : {}) };
    });
    const met = agentStates.every((a) => a.gate.decision !== 'open');
    return { target, comparisons: [], agents: agentStates, met, futile: !met && agentStates.every((a) => !a.open) };
  }
  const outcomes = outcomeTable(records);
  if (target.kind === 'separate') {
    const comparisons: ComparisonState[] = [];
    for (let i = 0; i < agents.length; i++) {
      for (let j = i + 1; j < agents.length; j++) {
        const a = agents[i] as string;
        const b = agents[j] as string;
        const tally = pairTally(outcomes, a, b, taskIds);
        const test = sequentialSignTest(tally.wins, tally.losses, target.confidence);
        comparisons.push({ a, b, test, pairs: tally.pairs, open: test.verdict === 'not separated' });
      }
    }
    closeFutile(comparisons, agents.length, target.confidence, remaining);
    const inOpen = new Set(comparisons.filter((c) => c.open).flatMap((c) => [c.a, c.b]));
    const agentStates = agents.map((agent) => ({ agent, open: inOpen.has(agent) }));
    const met = comparisons.every((c) => c.test.verdict !== 'not separated');
    return { target, comparisons, agents: agentStates, met, futile: !met && comparisons.every((c) => !c.open) };
  }
  const agentStates = agents.map((agent) => {
    const sequence = bettingConfidenceSequence(roundShares(outcomes, agent, taskIds), { confidence: target.confidence });
    return { agent, sequence, open: sequence.high - sequence.low > target.width };
  });
  return { target, comparisons: [], agents: agentStates, met: agentStates.every((a) => !a.open), futile: false };
}

/**
 * Futility of the separate target: with `remaining` attempts, at most remaining / agents more pair
 * sets run, so a comparison gets at most that many more discordant pairs. When even all of them
 * going to one side leaves the e-value under its threshold, the comparison cannot be separated in
 * this budget and is closed (its agents stop unless another comparison still needs them). Stopping
 * a test without rejecting never adds an error, so this keeps the design's validity.
 */
function closeFutile(comparisons: ComparisonState[], agents: number, confidence: number, remaining: number | undefined): void {
  if (remaining === undefined) return;
  const more = Math.floor(Math.max(0, remaining) / Math.max(2, agents));
  for (const c of comparisons) {
    if (!c.open) continue;
    const best = Math.max(
      sequentialSignTest(c.test.wins + more, c.test.losses, confidence).eValue,
      sequentialSignTest(c.test.wins, c.test.losses + more, confidence).eValue,
    );
    if (best < c.test.threshold) {
      c.open = false;
      c.futile = true;
    }
  }
}

/**
 * Allocation: where the next trials go. Only agents with an open question get trials, and they get
 * them together (the same trial index on the same task), so every pair the test counts was
 * scheduled before either half was seen; that is what keeps a pair's sign a fair coin under the null.
 *
 * Separate: up to `batch` distinct live tasks, fewest trials first (so every live task gets its next
 * pair before any gets two more). A task is live for an open comparison until its first two pairs
 * both agreed (both passed or both failed): a task both agents always solve, or always fail, can
 * never tell them apart, and in real task sets most tasks are like that. A task that ever disagreed
 * stays live. Width: a full round (every task once) per open agent, because the confidence sequence
 * is over rounds.
 */
export function nextTrials(records: readonly TrialRecord[], state: AdaptiveState, taskIds: readonly string[], batch = 1): TrialStep[] {
  if (state.met) return [];
  if (state.target.kind === 'gate')
    return state.agents.flatMap((a) => (a.open && a.gate ? a.gate.pending.map((p) => ({ taskId: p.taskId, agents: [a.agent], trial: p.trial })) : []));
  const open = state.agents.filter((a) => a.open).map((a) => a.agent);
  const outcomes = outcomeTable(records);
  const nextIndex = (taskId: string): number => Math.max(0, ...open.map((agent) => outcomes.get(key(taskId, agent))?.length ?? 0));
  // An interrupted run can leave a pair set half run; finish it first (it was scheduled before any half was seen).
  const unfinished = unfinishedSteps(outcomes, open, taskIds);
  if (unfinished.length > 0) return unfinished.slice(0, Math.max(1, batch));
  if (state.target.kind === 'width') return taskIds.map((taskId) => ({ taskId, agents: open, trial: nextIndex(taskId) }));

  const openComparisons = state.comparisons.filter((c) => c.open);
  const candidates = taskIds.map((taskId, order) => {
    const live = openComparisons.some((c) => {
      const t = taskPairs(outcomes.get(key(taskId, c.a)) ?? [], outcomes.get(key(taskId, c.b)) ?? []);
      return t.pairs < PROBE_PAIRS || t.wins + t.losses > 0;
    });
    return { taskId, live, trial: nextIndex(taskId), order };
  });
  // With every task retired the question stays open on what remains; try them all again in turn.
  const pool = candidates.some((c) => c.live) ? candidates.filter((c) => c.live) : candidates;
  pool.sort((x, y) => x.trial - y.trial || x.order - y.order);
  return pool.slice(0, Math.max(1, batch)).map(({ taskId, trial }) => ({ taskId, agents: open, trial }));
}

/** Pairs on a task that must agree before it is retired from a comparison. */
const PROBE_PAIRS = 2;

type OutcomeTable = Map<string, Array<boolean | null | undefined>>;

/** Trials k of some open agents on a task where another open agent already has trial k. */
function unfinishedSteps(outcomes: OutcomeTable, open: readonly string[], taskIds: readonly string[]): TrialStep[] {
  const steps: TrialStep[] = [];
  for (const taskId of taskIds) {
    const rows = open.map((agent) => outcomes.get(key(taskId, agent)) ?? []);
    const top = Math.max(0, ...rows.map((r) => r.length));
    for (let k = 0; k < top; k++) {
      const missing = open.filter((_, i) => (rows[i] as ReadonlyArray<unknown>)[k] === undefined);
      if (missing.length > 0 && missing.length < open.length) steps.push({ taskId, agents: missing, trial: k });
    }
  }
  return steps;
}

const key = (taskId: string, agent: string): string => `${agent}\u0000${taskId}`;

function outcomeTable(records: readonly TrialRecord[]): OutcomeTable {
  const table: OutcomeTable = new Map();
  for (const r of records) {
    if (!Number.isInteger(r.trial) || r.trial < 0) throw new RangeError(`trial must be a non-negative integer, got ${r.trial}`);
    const k = key(r.taskId, r.agent);
    const row = table.get(k) ?? [];
    row[r.trial] = r.passed;
    table.set(k, row);
  }
  return table;
}

interface Tally {
  wins: number;
  losses: number;
  pairs: number;
}

function taskPairs(a: ReadonlyArray<boolean | null | undefined>, b: ReadonlyArray<boolean | null | undefined>): Tally {
  const tally = { wins: 0, losses: 0, pairs: 0 };
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    const x = a[k];
    const y = b[k];
    if (typeof x !== 'boolean' || typeof y !== 'boolean') continue;
    tally.pairs++;
    if (x && !y) tally.wins++;
    else if (!x && y) tally.losses++;
  }
  return tally;
}

function pairTally(outcomes: OutcomeTable, a: string, b: string, taskIds: readonly string[]): Tally {
  const total = { wins: 0, losses: 0, pairs: 0 };
  for (const taskId of taskIds) {
    const t = taskPairs(outcomes.get(key(taskId, a)) ?? [], outcomes.get(key(taskId, b)) ?? []);
    total.wins += t.wins;
    total.losses += t.losses;
    total.pairs += t.pairs;
  }
  return total;
}

/** Per complete round k (trial k on every task), the share of its scored trials that passed. */
function roundShares(outcomes: OutcomeTable, agent: string, taskIds: readonly string[]): number[] {
  const rows = taskIds.map((taskId) => outcomes.get(key(taskId, agent)) ?? []);
  const rounds = rows.length === 0 ? 0 : Math.min(...rows.map((r) => r.length));
  const shares: number[] = [];
  for (let k = 0; k < rounds; k++) {
    const scored = rows.map((r) => r[k]).filter((x): x is boolean => typeof x === 'boolean');
    if (scored.length > 0) shares.push(scored.filter(Boolean).length / scored.length);
  }
  return shares;
}

function assertTarget(target: AdaptiveTarget): void {
  assertConfidence(target.confidence);
  if (target.kind === 'gate') return; // gateSequence checks the rest
  if (target.kind === 'width' && !(target.width > 0 && target.width <= 1)) {
    throw new RangeError(`width must lie in (0, 1], got ${target.width}`);
  }
}
