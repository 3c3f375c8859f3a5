import { describe, expect, it } from 'vitest';
import { runChecks } from '../../src/domain/checks/index.js';
import { judge } from '../../src/domain/grading/index.js';
import { input, run } from './helpers.js';

describe('the supervisor check', () => {
  it('fails a change whose test run carried a forged supervisor report, and the attempt is tampered, not a harness error', () => {
    const forged = "2 exit records on the init's channel, where the init writes one";
    const checks = runChecks(input({ tests: run({ forgedReport: forged }) }));
    const check = checks.find((c) => c.id === 'supervisor');
    expect(check).toMatchObject({ passed: false, severity: 'critical' });
    expect(check?.message).toContain(forged);
    expect(judge({ kind: 'graded', checks })).toMatchObject({ verdict: 'FAIL', cause: 'tampered' });
  });

  it('judges the held-out run too, and not the baseline (no code of the change ran there)', () => {
    const heldOut = runChecks(input({ heldOut: run({ forgedReport: 'x' }) })).find((c) => c.id === 'supervisor');
    expect(heldOut?.passed).toBe(false);
    const baseline = runChecks(input({ baselineTests: run({ forgedReport: 'x' }) })).find((c) => c.id === 'supervisor');
    expect(baseline?.passed).toBe(true);
  });

  it('passes every run whose report came from the supervisor alone', () => {
    const checks = runChecks(input({ tests: run(), heldOut: run() }));
    expect(checks.find((c) => c.id === 'supervisor')?.passed).toBe(true);
  });
});
