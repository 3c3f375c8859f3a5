import { classifyTests } from '../evidence/index.js';
import type { TestGroupOutcome } from '../types/index.js';
import { describeFailing } from './describe.js';
import { passedAtBaseline, passToPassIds } from './test-baseline.js';
import { capped, fail, pass, type Check } from './types.js';

type Failing = TestGroupOutcome['failing'][number];

/**
 * A pass-to-pass test that passed at the baseline and does not pass now (failed, skipped, gone).
 * Without a baseline run every failing pass-to-pass test counts: it is assumed to have passed.
 */
export const regressionCheck: Check = {
  id: 'regression',
  description: 'no pass-to-pass test that passed at the baseline fails now',
  run(input) {
    const run = input.tests;
    if (!run || run.invalidReason !== undefined) return pass('no usable test run to compare with the baseline', { skipped: true });
    const atBaseline = passedAtBaseline(input.baselineTests, input.baselineCases);
    let regressions: Failing[];
    let comparedWith: 'baseline' | 'assumed';
    if (atBaseline && input.baselineCases) {
      comparedWith = 'baseline';
      const ids = passToPassIds(input.task.tests, input.baselineCases).filter((id) => atBaseline.has(id));
      // The same rules as any listed pass-to-pass id: missing, failed, duplicated or skipped.
      regressions = classifyTests(input.cases ?? [], { failToPass: [], passToPass: ids }).passToPass.failing;
    } else {
      comparedWith = 'assumed';
      regressions = run.passToPass.failing;
    }
    const evidence = { comparedWith, regressions: capped(regressions) };
    if (regressions.length > 0) return fail(`passed at the baseline, failing now: ${describeFailing(regressions)}`, evidence);
    return pass(comparedWith === 'baseline' ? 'every pass-to-pass test that passed at the baseline still passes' : 'every pass-to-pass test passes', evidence);
  },
};
