/**
 * What the baseline's unusable run tells the task's author to fix follows the task's kind: a
 * reward verifier writes a reward file, a JUnit task JUnit XML, a TAP task prints TAP; a timeout is
 * about the time limit; a run that never started is about its program. Pure: evidence in, defects out.
 */
import { describe, expect, it } from 'vitest';
import { baselineDefects, taskWhere } from '../../src/domain/tasks/index.js';
import type { Task, TestRunEvidence } from '../../src/core/types/index.js';

const where = taskWhere({ id: 't', sourceFile: 'tasks.yaml' }, 0);

function run(over: Partial<TestRunEvidence>): TestRunEvidence {
  return {
    command: 'x',
    exitCode: 1,
    timedOut: false,
    durationMs: 10,
    parsed: 0,
    consistent: false,
    failToPass: { passed: 0, total: 1, failing: [] },
    passToPass: { passed: 0, total: 0, failing: [] },
    outputTail: 'the output',
    ...over,
  };
}

const reward: Pick<Task, 'tests'> = {
  tests: { command: '/tests/test.sh', failToPass: ['reward'], passToPass: [], testPaths: [], reward: { exec: ['/tests/test.sh'] } },
};
const junit: Pick<Task, 'tests'> = { tests: { command: 'npm test', failToPass: ['a'], passToPass: 'all_others', testPaths: [] } };
const tap: Pick<Task, 'tests'> = { tests: { ...junit.tests, format: 'tap' } };

describe('the fix for an unusable baseline run, by task kind', () => {
  it('a reward verifier that timed out is told about the time limit, never JUnit', () => {
    const [defect] = baselineDefects(reward, where, run({ timedOut: true, exitCode: null, invalidReason: 'the verifier timed out after 60000 ms' }), []);
    expect(defect).toMatchObject({ field: 'tasks[0].tests.exec', problem: expect.stringMatching(/^the verifier gives no usable reward at the baseline/) });
    expect(defect?.fix).toMatch(/limits\.test_timeout/);
    expect(defect?.fix).not.toMatch(/JUnit/);
  });

  it('a reward verifier with an unreadable reward is told about the reward file', () => {
    const [defect] = baselineDefects(reward, where, run({ invalidReason: 'reward.txt holds "yes", not a number in [0, 1]' }), []);
    expect(defect?.fix).toMatch(/one number in \[0, 1\] to \$CRUCIBLE_REWARD .*\/logs\/verifier\/reward\.txt/);
  });

  it('JUnit and TAP tasks are told about their own report', () => {
    expect(baselineDefects(junit, where, run({ invalidReason: 'test command wrote no JUnit XML' }), [])[0]?.fix).toMatch(/writes JUnit XML/);
    expect(baselineDefects(tap, where, run({ invalidReason: 'test command wrote no TAP' }), [])[0]?.fix).toMatch(/prints its TAP/);
  });

  it('a run that never started is about its program, with the reason', () => {
    const notStarted = { reason: 'the sandbox could not execute it (ENOENT)', proven: true };
    const [defect] = baselineDefects(reward, where, run({ notStarted, invalidReason: 'the verifier could not start: …' }), []);
    expect(defect?.problem).toBe('the verifier could not start at the baseline, so no test ran (the sandbox could not execute it (ENOENT))');
    expect(defect?.fix).toMatch(/interpreter on its #! line/);
  });
});
