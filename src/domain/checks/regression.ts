import { classifyTests } from '../evidence/index.js';
import type { TestCaseResult, TestGroupOutcome } from '../../core/types/index.js';
import { describeFailing } from './describe.js';
import { caseCounts, passedAtBaseline, passToPassIds } from './test-baseline.js';
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
    const allOthers = input.task.tests.passToPass === 'all_others';
    const atBaseline = passedAtBaseline(input.baselineTests, input.baselineCases, allOthers);
    let regressions: Failing[];
    let comparedWith: 'baseline' | 'assumed';
    if (atBaseline && input.baselineCases) {
      comparedWith = 'baseline';
      const before = caseCounts(input.baselineCases);
      const ids = passToPassIds(input.task.tests, input.baselineCases).filter((id) => atBaseline.has(id));
      const shared = allOthers ? ids.filter((id) => (before.get(id)?.passed ?? 0) > 1) : [];
      const sharedSet = new Set(shared);
      const single = ids.filter((id) => !sharedSet.has(id));
      // The same rules as any listed pass-to-pass id: missing, failed, duplicated or skipped.
      regressions = classifyTests(input.cases ?? [], { failToPass: [], passToPass: single }).passToPass.failing;
      if (shared.length > 0) regressions.push(...sharedRegressions(shared, before, input.cases ?? []));
    } else {
      comparedWith = 'assumed';
      regressions = run.passToPass.failing;
    }
    const evidence = { comparedWith, regressions: capped(regressions) };
    if (regressions.length > 0) return fail(`passed at the baseline, failing now: ${describeFailing(regressions)}`, evidence);
    return pass(comparedWith === 'baseline' ? 'every pass-to-pass test that passed at the baseline still passes' : 'every pass-to-pass test passes', evidence);
  },
};

/**
 * Ids several cases shared at the baseline, all passing (only under `all_others`): held to that
 * together. Any failed case fails the id, all skipped is skipped, and fewer cases than at the
 * baseline means one of those tests is gone (`missing`).
 */
function sharedRegressions(ids: readonly string[], before: ReadonlyMap<string, { passed: number }>, cases: readonly TestCaseResult[]): Failing[] {
  const now = caseCounts(cases);
  const failed = new Set(cases.filter((c) => c.status === 'failed').map((c) => c.id));
  const regressions: Failing[] = [];
  for (const id of ids) {
    const counts = now.get(id);
    const total = counts ? counts.passed + counts.other : 0;
    if (failed.has(id)) regressions.push({ id, reason: 'failed' });
    else if (counts === undefined || counts.passed === 0) regressions.push({ id, reason: total === 0 ? 'missing' : 'skipped' });
    else if (total < (before.get(id)?.passed ?? 0)) regressions.push({ id, reason: 'missing' });
  }
  return regressions;
}
