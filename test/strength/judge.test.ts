import { describe, expect, it } from 'vitest';
import type { AttemptResult, TestRunEvidence } from '../../src/core/types/index.js';
import { judgeFlake, judgeMutant, summarizeTaskSet, type TaskStrength } from '../../src/features/strength/index.js';

type Failing = TestRunEvidence['failToPass']['failing'];

function tests(f2p: Failing, p2p: Failing, extra: Partial<TestRunEvidence> = {}): TestRunEvidence {
  return {
    command: 't',
    exitCode: f2p.length + p2p.length > 0 ? 1 : 0,
    timedOut: false,
    durationMs: 1,
    parsed: 3,
    consistent: true,
    failToPass: { total: 1, passed: 1 - f2p.length, failing: f2p },
    passToPass: { total: 2, passed: 2 - p2p.length, failing: p2p },
    outputTail: '',
    ...extra,
  } as TestRunEvidence;
}

function attempt(agent: string, verdict: AttemptResult['verdict'], t?: TestRunEvidence, rest: Partial<AttemptResult> = {}): AttemptResult {
  return { agent, taskId: 't', verdict, cause: verdict === 'PASS' ? 'passed' : 'tests_failed', tests: t, checks: [], ...rest } as AttemptResult;
}

describe('a mutant graded', () => {
  it('survives when the task passes it, is killed when its tests fail', () => {
    expect(judgeMutant(attempt('mutant-1', 'PASS', tests([], []))).status).toBe('survived');
    expect(judgeMutant(attempt('mutant-1', 'FAIL', tests([{ id: 'f', reason: 'failed' }], []))).status).toBe('killed');
  });

  it('is set apart when it never loaded, did not apply, or the harness failed', () => {
    expect(judgeMutant(attempt('m', 'FAIL', tests([{ id: 'f', reason: 'missing' }], [])))).toMatchObject({ status: 'unloadable' });
    expect(judgeMutant(attempt('m', 'FAIL', tests([], [], { parsed: 0, invalidReason: 'no report' })))).toMatchObject({ status: 'unloadable' });
    expect(judgeMutant(attempt('m', 'FAIL', undefined, { agentResult: { stopReason: 'error', error: 'the patch does not apply' } }))).toMatchObject({
      status: 'unapplied',
    });
    expect(judgeMutant(attempt('m', 'ERROR', undefined, { cause: 'harness_error' }))).toMatchObject({ status: 'error', cause: 'harness_error' });
  });
});

describe('flakiness across identical runs', () => {
  it('names the tests whose outcome changed and the agent whose verdict did', () => {
    const flake = judgeFlake([
      attempt('oracle', 'PASS', tests([], [])),
      attempt('oracle', 'FAIL', tests([], [{ id: 'slow', reason: 'failed' }])),
      attempt('oracle', 'PASS', tests([], [])),
      attempt('nop', 'FAIL', tests([{ id: 'f', reason: 'failed' }], [])),
      attempt('nop', 'FAIL', tests([{ id: 'f', reason: 'failed' }], [])),
    ]);
    expect(flake).toEqual({ rate: 1 / 3, tests: 3, runs: 3, flaky: [{ id: 'slow', agent: 'oracle', rate: 1 / 3 }], verdictChanged: ['oracle'] });
  });

  it('is zero when every run agrees, and leaves harness errors out', () => {
    const flake = judgeFlake([attempt('oracle', 'PASS', tests([], [])), attempt('oracle', 'ERROR', undefined), attempt('oracle', 'PASS', tests([], []))]);
    expect(flake).toMatchObject({ rate: 0, runs: 2, flaky: [], verdictChanged: [] });
  });
});

describe('a task set summarized', () => {
  const task = (taskId: string, strength: number | undefined, survivors = 0): TaskStrength =>
    ({ taskId, ...(strength === undefined ? {} : { strength }), survivors: Array.from({ length: survivors }), flake: undefined }) as unknown as TaskStrength;

  it('gives the median over measured tasks and names the weakest first', () => {
    const s = summarizeTaskSet([task('a', 1), task('b', 0.5, 3), task('c', 0.75, 1), task('d', undefined)]);
    expect(s).toMatchObject({ measured: 3, median: 0.75, weakest: [{ taskId: 'b', strength: 0.5, survivors: 3 }, { taskId: 'c' }] });
  });
});
