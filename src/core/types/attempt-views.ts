import type { StopReason, Usage } from './agent.js';
import type { AgentInfo, AttemptResult, TestCount, TestRunEvidence } from './attempt.js';

/*
 * The attempt record (AttemptResult, attempt.json) is the one place an attempt is written. Every
 * other shape of it (the summary row, the history row, the list item every table shows, the report
 * row, a baseline cell, a gate cell) is derived from it here, so a field name means one thing in
 * all of them: `failedChecks` is always the ids of the failed checks, `failedCheckCount` how many
 * check results failed.
 */

/** Who ran what and how it ended: the part of an attempt every list of attempts shows. */
export type AttemptOutcome = Pick<AttemptResult, 'attemptId' | 'taskId' | 'agent' | 'trial' | 'verdict' | 'cause' | 'message'>;

export function attemptOutcome(a: AttemptOutcome): AttemptOutcome {
  return { attemptId: a.attemptId, taskId: a.taskId, agent: a.agent, trial: a.trial, verdict: a.verdict, cause: a.cause, message: a.message };
}

/** Ids of the checks that did not pass, each once, sorted: the same list however the checks were ordered. */
export function failedCheckIds(a: Pick<AttemptResult, 'checks'>): string[] {
  return [...new Set(a.checks.filter((c) => !c.passed).map((c) => c.id))].sort();
}

/** How many check results did not pass (the history counts the same in its checks table). */
export function failedCheckCount(a: Pick<AttemptResult, 'checks'>): number {
  return a.checks.filter((c) => !c.passed).length;
}

export function testCountOf(group: TestCount | undefined): TestCount | null {
  return group ? { passed: group.passed, total: group.total } : null;
}

/** Held-out runs are one set of tests, whichever group the verifier filed them under. */
export function heldOutCountOf(heldOut: TestRunEvidence | undefined): TestCount | null {
  if (!heldOut) return null;
  return { passed: heldOut.failToPass.passed + heldOut.passToPass.passed, total: heldOut.failToPass.total + heldOut.passToPass.total };
}

/** An agent's usage as tables show it: `costUsd` is null when the model has no known price (unknown, not free). */
export interface UsageFacts extends Omit<Usage, 'costUsd'> {
  costUsd: number | null;
}

/**
 * The numbers of an attempt that tables show and the history stores in columns: the history row
 * (infra/store AttemptRow) extends this, so a row read back and a record hold the same facts.
 * Timings are whole milliseconds, as the history stores them.
 */
export interface AttemptFacts {
  score: number | null;
  prepareMs: number;
  agentMs: number;
  verifyMs: number;
  totalMs: number;
  failToPass: TestCount | null;
  passToPass: TestCount | null;
  heldOut: TestCount | null;
  diff: { filesChanged: number; added: number; deleted: number } | null;
  stopReason: StopReason | null;
  turns: number | null;
  toolCalls: number | null;
  usage: UsageFacts | null;
  failedCheckCount: number;
}

export function attemptFactsOf(a: AttemptResult): AttemptFacts {
  const usage = a.agentResult?.usage;
  return {
    score: a.score ?? null,
    // Phase timings can be fractional (performance.now).
    prepareMs: Math.round(a.timings.prepareMs),
    agentMs: Math.round(a.timings.agentMs),
    verifyMs: Math.round(a.timings.verifyMs),
    totalMs: Math.round(a.timings.totalMs),
    failToPass: testCountOf(a.tests?.failToPass),
    passToPass: testCountOf(a.tests?.passToPass),
    heldOut: heldOutCountOf(a.heldOut),
    diff: a.diff ? { filesChanged: a.diff.filesChanged, added: a.diff.added, deleted: a.diff.deleted } : null,
    stopReason: a.agentResult?.stopReason ?? null,
    turns: a.agentResult?.turns ?? null,
    toolCalls: a.agentResult?.toolCalls ?? null,
    usage: usage ? { ...usage, costUsd: usage.costUsd ?? null } : null,
    failedCheckCount: failedCheckCount(a),
  };
}

/** One attempt of a baseline entry (baseline files store these; features/baseline/format.ts checks them). */
export interface BaselineCell {
  trial: number;
  verdict: AttemptResult['verdict'];
  cause: AttemptResult['cause'];
  /** See failedCheckIds. */
  failedChecks: string[];
}

/** One finished attempt as baselines are saved from and gates compare: a baseline cell and whose it is. */
export interface GateCell extends BaselineCell {
  taskId: string;
  taskVersion: string;
  agent: string;
  agentInfo?: AgentInfo;
}

export function gateCellOf(a: AttemptResult): GateCell {
  return {
    taskId: a.taskId,
    taskVersion: a.taskVersion,
    agent: a.agent,
    ...baselineCellOf({ ...a, failedChecks: failedCheckIds(a) }),
    ...(a.agentInfo ? { agentInfo: a.agentInfo } : {}),
  };
}

export function baselineCellOf(cell: BaselineCell): BaselineCell {
  return { trial: cell.trial, verdict: cell.verdict, cause: cell.cause, failedChecks: cell.failedChecks };
}
