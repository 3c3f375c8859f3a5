import type { TestCaseResult, TestGroupOutcome } from '../types/index.js';
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
      const byId = groupById(input.cases ?? []);
      regressions = passToPassIds(input.task.tests, input.baselineCases)
        .filter((id) => atBaseline.has(id))
        .flatMap((id) => {
          const reason = notPassing(byId.get(id) ?? []);
          return reason ? [{ id, reason }] : [];
        });
    } else {
      comparedWith = 'assumed';
      regressions = run.passToPass.failing;
    }
    const evidence = { comparedWith, regressions: capped(regressions) };
    if (regressions.length > 0) return fail(`passed at the baseline, failing now: ${describeFailing(regressions)}`, evidence);
    return pass(comparedWith === 'baseline' ? 'every pass-to-pass test that passed at the baseline still passes' : 'every pass-to-pass test passes', evidence);
  },
};

function notPassing(matches: TestCaseResult[]): Failing['reason'] | undefined {
  if (matches.length === 0) return 'missing';
  if (matches.some((c) => c.status === 'failed')) return 'failed';
  if (matches.length > 1) return 'duplicated';
  return matches[0]?.status === 'skipped' ? 'skipped' : undefined;
}

function groupById(cases: TestCaseResult[]): Map<string, TestCaseResult[]> {
  const byId = new Map<string, TestCaseResult[]>();
  for (const c of cases) byId.set(c.id, [...(byId.get(c.id) ?? []), c]);
  return byId;
}
