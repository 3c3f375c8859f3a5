import {
  failedCheckIds,
  type AttemptResult,
  type Cause,
  type DuplicateIds,
  type ResourceLimitName,
  type Task,
  type TaskDefect,
  type TestRunEvidence,
} from '../../core/types/index.js';
import { describeFailing } from '../checks/index.js';
import { isRunMarkerId } from '../evidence/index.js';

/** `unproven`: nothing is wrong with the task, but it has no oracle patch, so nothing shows it can be solved. */
export type ValidityStatus = 'valid' | 'invalid' | 'flaky' | 'unproven';

const NO_ORACLE = 'no oracle patch';

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
  /** The task's defects, when the run found it broken before any agent (`task_error`): what to fix. */
  defects?: TaskDefect[];
  /** With `pass_to_pass: all_others`: test cases that share an id, which grading cannot tell apart (a warning in `notes`). */
  duplicateIds?: DuplicateIds;
}

/**
 * Whether a task can grade agents, from one `nop` attempt and K `oracle` attempts (crucible
 * validate): `nop` must fail every fail-to-pass test and break nothing else, every `oracle`
 * attempt must pass (held-out tests included), and the oracle's attempts must agree. Disagreeing
 * oracle attempts make the task `flaky`; any other problem makes it `invalid`. A task with no
 * oracle and no problem is `unproven`: it can grade (nop fails what it must), but nothing shows
 * it can be passed.
 */
export function judgeTaskValidity(
  task: Pick<Task, 'id' | 'tests' | 'oracle' | 'heldOut'>,
  nop: AttemptResult | undefined,
  oracle: AttemptResult[],
): TaskValidity {
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

  // A broken task (found before any agent ran) has nothing else to judge: its defects are the answer.
  const defects = [nop, ...oracle].find((a) => a?.cause === 'task_error')?.taskError?.defects;
  if (defects !== undefined) {
    problems.push(...defects.map((d) => `${d.field}: ${d.problem} (fix: ${d.fix})`));
    return { ...validity, status: 'invalid', defects, oracle: { passed: 0, runs: 0, causes: ['task_error'] } };
  }

  if (nop) {
    validity.nop = {
      verdict: nop.verdict,
      cause: nop.cause,
      failToPassFailing: nop.tests?.failToPass.failing.length,
      failToPassTotal: nop.tests?.failToPass.total,
    };
    if (nop.verdict === 'ERROR') problems.push(`nop: ${nop.message}`);
    else if (nop.tests?.invalidReason) problems.push(`nop: the tests give no usable report without a fix (${nop.tests.invalidReason})`);
    else if (nop.tests) {
      const alreadyPassing = failToPassAlreadyPassing(task.tests.failToPass, nop.tests);
      if (alreadyPassing.length > 0) problems.push(`nop: fail-to-pass already pass without a fix: ${alreadyPassing.join(', ')}`);
      // A bug that crashes the test run leaves run markers ([no plan], …) behind: the fail-to-pass
      // tests' doing, not pass-to-pass tests nop broke.
      // Nor are tests that did not pass at the baseline either (a test file the bug crashes as it
      // loads fails there too): the tests check has set those apart as never passed.
      const neverPassed = neverPassedIds(nop);
      const broken = nop.tests.passToPass.failing.filter((f) => !isRunMarkerId(f.id) && !neverPassed.has(f.id));
      if (broken.length > 0) problems.push(`nop: pass-to-pass failing without any change: ${describeFailing(broken)}`);
    }
  }

  const duplicates = task.tests.passToPass === 'all_others' ? [nop, ...oracle].find((a) => a?.tests?.duplicates)?.tests?.duplicates : undefined;
  if (duplicates) {
    validity.duplicateIds = duplicates;
    notes.push(duplicateIdsWarning(duplicates));
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

  if (!task.oracle) {
    const missing = `${NO_ORACLE}: nothing shows the task can be solved (fix: add oracle: { patch: FILE }, a known-good fix)`;
    if (problems.length > 0) problems.push(missing);
    else {
      notes.unshift(missing);
      return { ...validity, status: 'unproven' };
    }
  }
  if (problems.length > 0 && validity.status !== 'flaky') validity.status = 'invalid';
  else if (validity.status === 'flaky' && problems.length > 1) validity.status = 'invalid';
  return validity;
}

/**
 * Why shared ids matter under `all_others`: each id counts once and stands for all its cases (the
 * regression check holds them to passing together), so a failure cannot be traced to one test.
 */
export function duplicateIdsWarning(d: DuplicateIds): string {
  const examples = d.examples
    .slice(0, 3)
    .map((e) => `"${e.id}" ×${e.cases}`)
    .join(', ');
  return (
    `warning: pass_to_pass all_others: ${d.cases} test cases are reported under only ${d.ids} id${d.ids === 1 ? '' : 's'} (${examples}${d.ids > 3 ? ', …' : ''}); ` +
    'each such id stands for all its cases, so grading cannot tell which of them failed (fix: give the tests distinct names, or make the report put the file in the id: docs/tasks.md#duplicate-ids)'
  );
}

/** The pass-to-pass ids the attempt's `tests` check found failing at the baseline too. */
function neverPassedIds(attempt: AttemptResult): ReadonlySet<string> {
  const listed = attempt.checks.find((c) => c.id === 'tests')?.evidence.neverPassed;
  const ids = typeof listed === 'object' && listed !== null && 'items' in listed ? listed.items : undefined;
  return new Set(Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : []);
}

/** Fail-to-pass ids that pass in a run made without any fix: a task that cannot grade anyone. */
export function failToPassAlreadyPassing(failToPass: readonly string[], run: TestRunEvidence): string[] {
  const failing = new Set(run.failToPass.failing.map((f) => f.id));
  return [...new Set(failToPass)].filter((id) => !failing.has(id));
}

/** What an attack (or honest control) must end with; mirrors the attack catalogue's `ExpectedOutcome`. */
export type AttackExpectation = { verdict: 'PASS'; cause: 'passed' } | { verdict: 'FAIL'; cause: Cause; limits?: ResourceLimitName[] } | 'no_effect';

/**
 * How one attack fared (`crucible validate --adversarial`):
 * - `held`: FAIL as expected;
 * - `stopped_otherwise`: FAIL, but with another cause than expected (not through, worth a look);
 * - `got_through`: PASS — the task set (or the harness) let a cheat through;
 * - `harness_error`: ERROR — the attack turned its own failure into one, excluded from pass rates;
 * - `control_passed` / `false_alarm`: an honest control passed with no failed check, or did not.
 */
export type AttackOutcome = 'held' | 'stopped_otherwise' | 'got_through' | 'harness_error' | 'control_passed' | 'false_alarm';

export interface AttackReport {
  attack: string;
  class: string;
  expected: string;
  verdict: AttemptResult['verdict'];
  cause: AttemptResult['cause'];
  message: string;
  outcome: AttackOutcome;
  /** Checks that failed, by id (failedCheckIds). */
  failedChecks: string[];
  /** With cause resource_exceeded: the limit named. */
  limit?: ResourceLimitName;
}

export interface TaskAdversarial {
  taskId: string;
  /** No attack got through or turned into a harness error, and every honest control passed cleanly. */
  secure: boolean;
  gotThrough: string[];
  harnessErrors: string[];
  falseAlarms: string[];
  attacks: AttackReport[];
}

export function describeExpectation(expected: AttackExpectation): string {
  if (expected === 'no_effect') return 'not PASS';
  return expected.verdict === 'PASS' ? 'PASS' : `FAIL ${expected.cause}${expected.limits ? ` (${expected.limits.join('|')})` : ''}`;
}

/** The limit an attempt names: the engine's record, the agent's stop, or the test run's. */
export function namedLimit(a: AttemptResult): ResourceLimitName | undefined {
  return a.resourceLimit ?? a.agentResult?.limit ?? a.tests?.limitExceeded ?? a.heldOut?.limitExceeded;
}

/** Whether an attempt is what the expectation demands (for resource limits: the limit is named too). */
export function meetsAttackExpectation(
  expected: AttackExpectation,
  a: Pick<AttemptResult, 'verdict' | 'cause' | 'message' | 'checks'> & Partial<AttemptResult>,
): boolean {
  if (expected === 'no_effect') return a.verdict === 'FAIL';
  if (a.verdict !== expected.verdict || a.cause !== expected.cause) return false;
  if (expected.verdict === 'PASS') return a.checks.every((c) => c.passed);
  if (expected.limits) {
    const limit = namedLimit(a as AttemptResult);
    return (limit !== undefined && expected.limits.includes(limit)) || expected.limits.some((l) => a.message.includes(l));
  }
  return true;
}

/** One attempt of an attack, judged against what the catalogue expects of it. */
export function judgeAttack(spec: { name: string; class: string; expected: AttackExpectation }, a: AttemptResult): AttackReport {
  const honest = spec.expected !== 'no_effect' && spec.expected.verdict === 'PASS';
  const meets = meetsAttackExpectation(spec.expected, a);
  const outcome: AttackOutcome = honest
    ? meets
      ? 'control_passed'
      : 'false_alarm'
    : a.verdict === 'PASS'
      ? 'got_through'
      : a.verdict === 'ERROR'
        ? 'harness_error'
        : meets
          ? 'held'
          : 'stopped_otherwise';
  const limit = namedLimit(a);
  return {
    attack: spec.name,
    class: spec.class,
    expected: describeExpectation(spec.expected),
    verdict: a.verdict,
    cause: a.cause,
    message: a.message,
    outcome,
    failedChecks: failedCheckIds(a),
    ...(limit ? { limit } : {}),
  };
}

/** A task's adversarial validation from its attacks' attempts (`crucible validate --adversarial`). */
export function judgeTaskAdversarial(taskId: string, reports: AttackReport[]): TaskAdversarial {
  const named = (o: AttackOutcome): string[] => reports.filter((r) => r.outcome === o).map((r) => r.attack);
  const gotThrough = named('got_through');
  const harnessErrors = named('harness_error');
  const falseAlarms = named('false_alarm');
  return { taskId, secure: gotThrough.length + harnessErrors.length + falseAlarms.length === 0, gotThrough, harnessErrors, falseAlarms, attacks: reports };
}
