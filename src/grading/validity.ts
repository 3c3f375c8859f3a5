import type { AttemptResult, Task, TestRunEvidence } from '../types/index.js';
import { describeFailing } from '../checks/describe.js';

export type ValidityStatus = 'valid' | 'invalid' | 'flaky';

export interface TaskValidity {
  taskId: string;
  status: ValidityStatus;
  /** Why the task is invalid or flaky; empty when valid. */
  problems: string[];
  /** Worth knowing, not disqualifying: checks of severity warning or info that the oracle trips. */
  notes: string[];
  nop: { verdict?: AttemptResult['verdict']; cause?: AttemptResult['cause']; failToPassFailing?: number; failToPassTotal?: number };
  oracle: { passed: number; runs: number; causes: string[] };
  heldOut?: { passed: number; total: number };
}

/**
 * Whether a task can grade agents, from one `nop` attempt and K `oracle` attempts (crucible
 * validate): `nop` must fail every fail-to-pass test and break nothing else, every `oracle`
 * attempt must pass (held-out tests included), and the oracle's attempts must agree. Disagreeing
 * oracle attempts make the task `flaky`; any other problem makes it `invalid`.
 */
export function judgeTaskValidity(task: Pick<Task, 'id' | 'tests' | 'oracle' | 'heldOut'>, nop: AttemptResult | undefined, oracle: AttemptResult[]): TaskValidity {
  const problems: string[] = [];
  const notes: string[] = [];
  const passes = oracle.filter((a) => a.verdict === 'PASS');
  const validity: TaskValidity = {
    taskId: task.id,
    status: 'valid',
    problems,
    notes,
    nop: {},
    oracle: { passed: passes.length, runs: oracle.length, causes: [...new Set(oracle.filter((a) => a.verdict !== 'PASS').map((a) => a.cause))] },
  };

  if (!task.oracle) problems.push('no oracle patch: nothing proves the task can be solved (add oracle.patch)');

  if (nop) {
    validity.nop = { verdict: nop.verdict, cause: nop.cause, failToPassFailing: nop.tests?.failToPass.failing.length, failToPassTotal: nop.tests?.failToPass.total };
    if (nop.verdict === 'ERROR') problems.push(`nop: ${nop.message}`);
    else if (nop.tests?.invalidReason) problems.push(`nop: the tests give no usable report without a fix (${nop.tests.invalidReason})`);
    else if (nop.tests) {
      const alreadyPassing = failToPassAlreadyPassing(task.tests.failToPass, nop.tests);
      if (alreadyPassing.length > 0) problems.push(`nop: fail-to-pass already pass without a fix: ${alreadyPassing.join(', ')}`);
      if (nop.tests.passToPass.failing.length > 0) problems.push(`nop: pass-to-pass failing without any change: ${describeFailing(nop.tests.passToPass.failing)}`);
    }
  }

  if (task.oracle && oracle.length > 0) {
    if (passes.length === 0) {
      const first = oracle[0] as AttemptResult;
      problems.push(`oracle fails: ${first.cause}: ${first.message}`);
    } else if (passes.length < oracle.length) {
      const failed = oracle.find((a) => a.verdict !== 'PASS') as AttemptResult;
      validity.status = 'flaky';
      problems.push(`oracle passed ${passes.length}/${oracle.length} runs; a failing run: ${failed.cause}: ${failed.message}`);
    }
    const heldOut = oracle.find((a) => a.heldOut)?.heldOut;
    if (heldOut) {
      validity.heldOut = { passed: heldOut.passToPass.passed, total: heldOut.passToPass.total };
      const bad = oracle.find((a) => a.checks.some((c) => c.id === 'held_out' && !c.passed));
      if (bad) problems.push(`oracle fails the held-out tests: ${bad.checks.find((c) => c.id === 'held_out')?.message ?? ''}`);
    }
    const tripped = new Map<string, string>();
    for (const attempt of passes) {
      for (const c of attempt.checks) if (!c.passed && c.id !== 'held_out') tripped.set(c.id, `oracle trips ${c.id} (${c.severity}): ${c.message}`);
    }
    notes.push(...tripped.values());
  }

  if (problems.length > 0 && validity.status !== 'flaky') validity.status = 'invalid';
  else if (validity.status === 'flaky' && problems.length > 1) validity.status = 'invalid';
  return validity;
}

/** Fail-to-pass ids that pass in a run made without any fix: a task that cannot grade anyone. */
export function failToPassAlreadyPassing(failToPass: readonly string[], run: TestRunEvidence): string[] {
  const failing = new Set(run.failToPass.failing.map((f) => f.id));
  return [...new Set(failToPass)].filter((id) => !failing.has(id));
}
