import { describeFailing } from './describe.js';
import { passedAtBaseline } from './test-baseline.js';
import { capped, fail, pass, type Check } from './types.js';

/**
 * The tests' outcome: every fail-to-pass id passed, and every pass-to-pass id still passes — except
 * ids that did not pass at the baseline either, which say nothing about the agent.
 */
export const testsCheck: Check = {
  id: 'tests',
  description: 'fail-to-pass tests pass; pass-to-pass tests that passed at the baseline still pass',
  run(input) {
    const run = input.tests;
    if (!run) return fail('the tests did not run');
    const atBaseline = passedAtBaseline(input.baselineTests, input.baselineCases, input.task.tests.passToPass === 'all_others');
    const neverPassed = atBaseline ? run.passToPass.failing.filter((f) => !atBaseline.has(f.id)) : [];
    const p2pFailing = run.passToPass.failing.filter((f) => !neverPassed.includes(f));
    const evidence = {
      failToPass: { passed: run.failToPass.passed, total: run.failToPass.total, failing: capped(run.failToPass.failing) },
      passToPass: { passed: run.passToPass.passed, total: run.passToPass.total, failing: capped(p2pFailing) },
      neverPassed: capped(neverPassed.map((f) => f.id)),
      exitCode: run.exitCode,
      consistent: run.consistent,
      ...(run.invalidReason ? { invalidReason: run.invalidReason } : {}),
    };
    if (run.invalidReason) return fail(`test run unusable: ${run.invalidReason}`, evidence);
    const problems: string[] = [];
    if (run.failToPass.failing.length > 0) problems.push(`fail-to-pass failing: ${describeFailing(run.failToPass.failing)}`);
    if (p2pFailing.length > 0) problems.push(`pass-to-pass failing: ${describeFailing(p2pFailing)}`);
    if (problems.length === 0 && !run.consistent) problems.push(`exit code ${run.exitCode} disagrees with the JUnit report`);
    if (problems.length > 0) return fail(problems.join('; '), evidence);
    const note = neverPassed.length > 0 ? `; ${neverPassed.length} pass-to-pass never passed at the baseline` : '';
    return pass(`F2P ${run.failToPass.passed}/${run.failToPass.total}, P2P ${run.passToPass.passed}/${run.passToPass.total}${note}`, evidence);
  },
};
