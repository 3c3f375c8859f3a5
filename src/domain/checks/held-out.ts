import { describeFailing } from './describe.js';
import { capped, fail, pass, type Check } from './types.js';

/**
 * Held-out tests (copied in after the agent stopped): every case in their report must pass. Their
 * severity is `info` unless the task says `held_out: { required: true }`, so by default they are
 * reported apart and never change the verdict.
 */
export const heldOutCheck: Check = {
  id: 'held_out',
  description: 'held-out tests, copied in after the agent stopped, pass',
  run(input) {
    if (!input.task.heldOut) return pass('no held-out tests', { skipped: true });
    const run = input.heldOut;
    const required = input.task.heldOut.required;
    if (!run) return fail('held-out tests did not run', { required });
    // Two groups, one requirement: the cases that passed at the baseline are required by id (the
    // fail-to-pass group of this run), every other case reported must pass too (pass-to-pass).
    const group = {
      passed: run.failToPass.passed + run.passToPass.passed,
      total: run.failToPass.total + run.passToPass.total,
      failing: [...run.failToPass.failing, ...run.passToPass.failing],
    };
    const evidence = {
      required,
      passed: group.passed,
      total: group.total,
      failing: capped(group.failing),
      ...(run.invalidReason ? { invalidReason: run.invalidReason } : {}),
    };
    if (run.invalidReason) return fail(`held-out run unusable: ${run.invalidReason}`, evidence);
    if (group.failing.length > 0) return fail(`held_out ${group.passed}/${group.total}: ${describeFailing(group.failing)}`, evidence);
    if (!run.consistent) return fail(`held_out ${group.passed}/${group.total}, but exit code ${run.exitCode} disagrees with the report`, evidence);
    return pass(`held_out ${group.passed}/${group.total}`, evidence);
  },
};
