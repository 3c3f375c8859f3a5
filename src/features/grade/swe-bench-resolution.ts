import { UNSCORED_CAUSES, type AttemptResult, type TestGroupOutcome, type TestRunEvidence } from '../../core/types/index.js';

/*
 * "Resolved" by two rules, both computed for every attempt and named in the export:
 *
 * - `swe-bench` (SWE-bench's harness, grading.py get_resolution_status == RESOLVED_FULL): every
 *   FAIL_TO_PASS test passes and every PASS_TO_PASS test passes or is skipped (its
 *   `test_maintained`), whatever it did at the baseline. A test missing from the report fails.
 * - `crucible` (the attempt's verdict): every fail-to-pass test passes and every pass-to-pass test
 *   that passed at the baseline still passes; a test already broken at the baseline is excused.
 *
 * The exported report uses `swe-bench`. It is taken over Crucible's verdict, never beside it: an
 * attempt Crucible failed (an edited test, a forged report, a policy check) is resolved by neither.
 */

export type ResolutionRule = 'swe-bench' | 'crucible';

export interface Resolution {
  'swe-bench': boolean;
  crucible: boolean;
}

/** The pass-to-pass ids SWE-bench's rule does not excuse: every failing one but the skipped. */
function notMaintained(group: TestGroupOutcome): TestGroupOutcome['failing'] {
  return group.failing.filter((f) => f.reason !== 'skipped');
}

export function resolutionOf(a: Pick<AttemptResult, 'verdict' | 'tests'>): Resolution {
  const crucible = a.verdict === 'PASS';
  const tests = a.tests;
  const sweBench =
    crucible &&
    (tests === undefined ||
      (tests.invalidReason === undefined && tests.failToPass.passed === tests.failToPass.total && notMaintained(tests.passToPass).length === 0));
  return { 'swe-bench': sweBench, crucible };
}

/** One group as SWE-bench's per-instance report lists it: the ids that count as passing, and the rest. */
export interface SweBenchTestsStatus {
  success: string[];
  failure: string[];
}

/**
 * FAIL_TO_PASS and PASS_TO_PASS of one instance as SWE-bench's report.json carries them
 * (`tests_status`), from the task's own ids: what is not failing passed. Under SWE-bench's rule a
 * skipped pass-to-pass test is maintained, so it is listed as a success there.
 */
export function testsStatusOf(
  tests: TestRunEvidence,
  ids: { failToPass: readonly string[]; passToPass: readonly string[] },
): Record<'FAIL_TO_PASS' | 'PASS_TO_PASS' | 'FAIL_TO_FAIL' | 'PASS_TO_FAIL', SweBenchTestsStatus> {
  const split = (listed: readonly string[], failing: ReadonlySet<string>): SweBenchTestsStatus => ({
    success: listed.filter((id) => !failing.has(id)),
    failure: listed.filter((id) => failing.has(id)),
  });
  const f2pFailing = new Set(tests.failToPass.failing.map((f) => f.id));
  const p2pFailing = new Set(notMaintained(tests.passToPass).map((f) => f.id));
  // Ids the report named under pass-to-pass that the task did not list (`all_others`) are kept as failures.
  const p2pListed = [...new Set([...ids.passToPass, ...p2pFailing])];
  return {
    FAIL_TO_PASS: split(ids.failToPass, f2pFailing),
    PASS_TO_PASS: split(p2pListed, p2pFailing),
    FAIL_TO_FAIL: { success: [], failure: [] },
    PASS_TO_FAIL: { success: [], failure: [] },
  };
}

/**
 * Why an instance that was not resolved failed, in SWE-bench's two tiers (`infra_failure_ids`:
 * the environment broke; `ambiguous_failure_ids`: the environment or the patch). SWE-bench
 * matches signatures in its logs; Crucible reads its own record instead (the cause, the sandbox's
 * resource limit, the test run's timeout and parsed count), never text the code under test printed.
 */
export function failureReasonOf(
  a: Pick<AttemptResult, 'cause' | 'tests' | 'resourceLimit'>,
): { reason: string; tier: 'environment' | 'ambiguous' } | undefined {
  if (UNSCORED_CAUSES.has(a.cause)) return { reason: a.cause, tier: 'environment' };
  if (a.cause === 'resource_exceeded' || a.resourceLimit !== undefined)
    return { reason: a.resourceLimit === 'memory' ? 'out_of_memory' : `resource_exceeded${a.resourceLimit ? `:${a.resourceLimit}` : ''}`, tier: 'ambiguous' };
  if (a.tests?.timedOut) return { reason: 'tests_timed_out', tier: 'ambiguous' };
  if (a.tests !== undefined && a.tests.parsed === 0) return { reason: 'no_tests_collected', tier: 'ambiguous' };
  return undefined;
}
