import { describe, expect, it } from 'vitest';
import { judgeTaskValidity } from '../../src/domain/grading/index.js';
import type { AttemptResult, Task, TestRunEvidence } from '../../src/core/types/index.js';

const task: Pick<Task, 'id' | 'tests' | 'oracle' | 'heldOut'> = {
  id: 't',
  tests: { command: 'x', failToPass: ['f1', 'f2'], passToPass: 'all_others', testPaths: [] },
  oracle: { patch: 'diff' },
};

function tests(f2pFailing: string[], p2pFailing: string[] = []): TestRunEvidence {
  const failing = (ids: string[]) => ids.map((id) => ({ id, reason: 'failed' as const }));
  return {
    command: 'x',
    exitCode: f2pFailing.length + p2pFailing.length > 0 ? 1 : 0,
    timedOut: false,
    durationMs: 1,
    parsed: 4,
    consistent: true,
    failToPass: { total: 2, passed: 2 - f2pFailing.length, failing: failing(f2pFailing) },
    passToPass: { total: 2, passed: 2 - p2pFailing.length, failing: failing(p2pFailing) },
    outputTail: '',
  };
}

function attempt(
  agent: string,
  verdict: AttemptResult['verdict'],
  cause: AttemptResult['cause'],
  t: TestRunEvidence,
  over: Partial<AttemptResult> = {},
): AttemptResult {
  return {
    attemptId: `${agent}`,
    runId: 'r',
    taskId: 't',
    taskVersion: '1',
    agent,
    trial: 0,
    index: 0,
    schemaVersion: 1,
    verdict,
    cause,
    message: `${cause} message`,
    sandbox: 'bwrap',
    tests: t,
    checks: [],
    timings: { prepareMs: 0, agentMs: 0, verifyMs: 0, totalMs: 0 },
    startedAt: '',
    finishedAt: '',
    ...over,
  };
}

const nopFails = attempt('nop', 'FAIL', 'no_changes', tests(['f1', 'f2']));
const oraclePasses = attempt('oracle', 'PASS', 'passed', tests([]));

describe('judgeTaskValidity', () => {
  it('valid: nop fails every F2P test, every oracle run passes', () => {
    const v = judgeTaskValidity(task, nopFails, [oraclePasses, oraclePasses, oraclePasses]);
    expect(v).toMatchObject({ status: 'valid', problems: [], nop: { failToPassFailing: 2, failToPassTotal: 2 }, oracle: { passed: 3, runs: 3 } });
  });

  it('invalid: an F2P test passes without a fix, or P2P fails without any change', () => {
    expect(judgeTaskValidity(task, attempt('nop', 'FAIL', 'no_changes', tests(['f1'])), [oraclePasses]).problems).toEqual([
      'nop: fail-to-pass already pass without a fix: f2',
    ]);
    expect(judgeTaskValidity(task, attempt('nop', 'FAIL', 'no_changes', tests(['f1', 'f2'], ['p'])), [oraclePasses]).status).toBe('invalid');
  });

  it('invalid: the oracle fails, has no patch, or the tests never report; errors are named', () => {
    expect(judgeTaskValidity(task, nopFails, [attempt('oracle', 'FAIL', 'tests_failed', tests(['f1']))]).problems).toEqual([
      'oracle fails: tests_failed: tests_failed message',
    ]);
    // No oracle and something else wrong: invalid, both named.
    expect(judgeTaskValidity({ ...task, oracle: undefined }, attempt('nop', 'FAIL', 'no_changes', tests(['f1'])), []).problems).toEqual([
      'nop: fail-to-pass already pass without a fix: f2',
      'no oracle patch: nothing shows the task can be solved (fix: add oracle: { patch: FILE }, a known-good fix)',
    ]);
    const noReport = attempt('nop', 'FAIL', 'tests_failed', { ...tests(['f1', 'f2']), invalidReason: 'test command wrote no JUnit report' });
    expect(judgeTaskValidity(task, noReport, [oraclePasses]).problems[0]).toMatch(/no usable report without a fix/);
    const setupFailed = attempt('nop', 'ERROR', 'harness_error', tests([]), { message: 'prepare: setup command `npm ci` failed' });
    expect(judgeTaskValidity(task, setupFailed, [oraclePasses]).problems).toEqual(['nop: prepare: setup command `npm ci` failed']);
  });

  it('unproven: no oracle patch and nothing else wrong', () => {
    const v = judgeTaskValidity({ ...task, oracle: undefined }, nopFails, []);
    expect(v).toMatchObject({
      status: 'unproven',
      problems: [],
      notes: ['no oracle patch: nothing shows the task can be solved (fix: add oracle: { patch: FILE }, a known-good fix)'],
    });
  });

  it('flaky: oracle runs disagree', () => {
    const v = judgeTaskValidity(task, nopFails, [oraclePasses, attempt('oracle', 'FAIL', 'tests_failed', tests(['f2'])), oraclePasses]);
    expect(v.status).toBe('flaky');
    expect(v.problems[0]).toMatch(/^oracle passed 2\/3 runs/);
  });

  it('invalid when the oracle fails held-out tests; notes warnings the oracle trips', () => {
    const heldOut = { ...tests([]), passToPass: { total: 2, passed: 1, failing: [{ id: 'h', reason: 'failed' as const }] } };
    const checks = [
      { id: 'held_out', passed: false, severity: 'info' as const, message: 'held_out 1/2: h (failed)', evidence: {} },
      { id: 'diff_size', passed: false, severity: 'warning' as const, message: 'diff too large', evidence: {} },
    ];
    const v = judgeTaskValidity({ ...task, heldOut: { path: '/h', command: 'x', required: false } }, nopFails, [{ ...oraclePasses, heldOut, checks }]);
    expect(v).toMatchObject({ status: 'invalid', heldOut: { passed: 1, total: 2 }, notes: ['oracle trips diff_size (warning): diff too large'] });
    expect(v.problems).toEqual(['oracle fails the held-out tests: held_out 1/2: h (failed)']);
  });
});
