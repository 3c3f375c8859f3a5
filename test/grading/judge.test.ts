import { describe, expect, it } from 'vitest';
import { grade, judge, neverRanReason, verifiedOutcome, type Outcome } from '../../src/domain/grading/index.js';
import type { CheckResult } from '../../src/core/types/index.js';
import { run } from '../checks/helpers.js';

const check = (id: string, passed: boolean, severity: CheckResult['severity'] = 'error'): CheckResult => ({
  id,
  passed,
  severity,
  message: `${id} ${passed ? 'ok' : 'failed'}`,
  evidence: {},
});

describe('judge', () => {
  it('an outcome over a limit fails on resource_exceeded, names the limit and scores 0', () => {
    expect(judge({ kind: 'over_limit', limit: 'change_files', message: 'the change has 9000 files' })).toEqual({
      verdict: 'FAIL',
      cause: 'resource_exceeded',
      message: 'change_files: the change has 9000 files',
      score: 0,
      resourceLimit: 'change_files',
    });
  });

  it('an unverifiable change is the agent failing the tests', () => {
    expect(judge({ kind: 'unverifiable', message: 'could not capture the change: bad object' })).toEqual({
      verdict: 'FAIL',
      cause: 'tests_failed',
      message: 'verify: could not capture the change: bad object',
      score: 0,
    });
  });

  it('tests that never ran, a task defect and a harness fault are errors without a score', () => {
    const cases: Array<[Outcome, string, string]> = [
      [{ kind: 'never_ran', reason: 'no report at the baseline either' }, 'harness_error', 'verify: no report at the baseline either'],
      [
        { kind: 'task_defect', message: 'task error: tests.fail_to_pass: x is not reported' },
        'task_error',
        'task error: tests.fail_to_pass: x is not reported',
      ],
      [{ kind: 'harness_fault', phase: 'prepare', message: 'bwrap: cannot mount' }, 'harness_error', 'prepare: bwrap: cannot mount'],
      [{ kind: 'harness_fault', message: 'attempt crashed: EMFILE' }, 'harness_error', 'attempt crashed: EMFILE'],
    ];
    for (const [outcome, cause, message] of cases) {
      const judged = judge(outcome);
      expect(judged).toEqual({ verdict: 'ERROR', cause, message });
      expect(judged.score).toBeUndefined();
    }
  });

  it('a graded outcome is grade() over its checks, and keeps the limit only when the limit is the cause', () => {
    const failing = [check('tests', false)];
    const graded = judge({ kind: 'graded', checks: failing, agentResult: { stopReason: 'completed' }, resourceLimit: 'memory' });
    expect(graded).toEqual({ ...grade({ checks: failing, agentResult: { stopReason: 'completed' }, resourceLimit: 'memory' }), resourceLimit: 'memory' });
    expect(graded.cause).toBe('resource_exceeded');
    const passing = judge({ kind: 'graded', checks: [check('tests', true)], agentResult: { stopReason: 'completed' }, resourceLimit: 'memory' });
    expect(passing).toMatchObject({ verdict: 'PASS', cause: 'passed' });
    expect(passing.resourceLimit).toBeUndefined();
    const tampered = judge({ kind: 'graded', checks: [check('tests', false), check('test_tampering', false, 'critical')], resourceLimit: 'memory' });
    expect(tampered).toMatchObject({ verdict: 'FAIL', cause: 'tampered' });
    expect(tampered.resourceLimit).toBeUndefined();
  });

  it('a graded outcome with a provider failure is the provider error grade() makes of it', () => {
    const agentResult = {
      stopReason: 'error' as const,
      provider: {
        name: 'p',
        requests: 4,
        answered: 0,
        failed: 4,
        byKind: {},
        retryWaitMs: 0,
        last: { seq: 4, ok: false, status: 502, failure: 'status' as const },
      },
    };
    expect(judge({ kind: 'graded', checks: [check('tests', false)], agentResult })).toMatchObject({ verdict: 'ERROR', cause: 'provider_error' });
  });
});

describe('verifiedOutcome', () => {
  const unusable = run({ invalidReason: 'no report was written' });

  it('never ran when the run after the agent and the baseline run both gave no usable report', () => {
    const outcome = verifiedOutcome({ checks: [], tests: unusable, baselineTests: unusable, heldOut: undefined, commands: [], agentResult: undefined });
    expect(outcome).toEqual({ kind: 'never_ran', reason: neverRanReason(unusable, unusable) });
    expect(outcome.kind === 'never_ran' && outcome.reason).toMatch(/no usable report at the baseline either \(no report was written\); check tests.command/);
  });

  it('graded when the baseline run was usable (or absent), with the first limit that explains a failure', () => {
    const checks = [check('tests', false)];
    expect(verifiedOutcome({ checks, tests: unusable, baselineTests: run(), heldOut: undefined, commands: [], agentResult: undefined })).toEqual({
      kind: 'graded',
      checks,
    });
    const outcome = verifiedOutcome({
      checks,
      tests: unusable,
      baselineTests: undefined,
      heldOut: run({ limitExceeded: 'pids' }),
      commands: [{ limitExceeded: 'memory' }],
      agentResult: { stopReason: 'completed' },
    });
    expect(outcome).toEqual({ kind: 'graded', checks, agentResult: { stopReason: 'completed' }, resourceLimit: 'memory' });
  });
});
