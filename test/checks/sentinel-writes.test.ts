import { describe, expect, it } from 'vitest';
import { runChecks } from '../../src/domain/checks/index.js';
import { grade } from '../../src/domain/grading/verdict.js';
import type { SentinelWrite } from '../../src/core/types/index.js';
import { input, run } from './helpers.js';

const WRITE: SentinelWrite = { target: 'node:assert.equal', via: 'set', file: 'src/a.js', line: 3 };

function check(over: Parameters<typeof input>[0]) {
  return runChecks(input(over)).find((c) => c.id === 'runner_internals') as ReturnType<typeof runChecks>[number];
}

describe('runner_internals on what the Node sentinel refused', () => {
  it('fails on a refused write in the verification run, naming target, file and line, and grades it tampered', () => {
    const over = { tests: run({ runnerWrites: [WRITE] }) };
    const result = check(over);
    expect(result.passed).toBe(false);
    expect(result.message).toContain('node:assert.equal (set at src/a.js:3)');
    expect(grade({ checks: runChecks(input(over)) })).toMatchObject({ verdict: 'FAIL', cause: 'tampered' });
  });

  it('fails on a refused write seen only in the held-out run', () => {
    expect(check({ heldOut: run({ runnerWrites: [{ ...WRITE, via: 'Object.defineProperty' }] }) }).passed).toBe(false);
  });

  it("leaves out the repository's own writes: the baseline run made the same one at the same place", () => {
    const result = check({ tests: run({ runnerWrites: [WRITE] }), baselineTests: run({ runnerWrites: [WRITE] }) });
    expect(result.passed).toBe(true);
    expect(check({ tests: run({ runnerWrites: [WRITE] }), baselineTests: run({ runnerWrites: [{ ...WRITE, line: 4 }] }) }).passed).toBe(false);
  });

  it('passes when the sentinel refused nothing', () => {
    expect(check({ tests: run(), heldOut: run() }).passed).toBe(true);
  });
});
