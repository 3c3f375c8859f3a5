import { CHECK_IDS, type CheckId, type CheckResult } from '../../core/types/index.js';
import { diffSizeCheck } from './diff-size.js';
import { forbiddenPathsCheck } from './forbidden-paths.js';
import { heldOutCheck } from './held-out.js';
import { heldOutValuesCheck } from './held-out-values.js';
import { moduleShadowingCheck } from './module-shadowing.js';
import { noChangesCheck } from './no-changes.js';
import { outsideWritesCheck } from './outside-writes.js';
import { regressionCheck } from './regression.js';
import { runnerInternalsCheck } from './runner-internals.js';
import { runnerReachCheck } from './runner-reach.js';
import { scopeCheck } from './scope.js';
import { secretsCheck } from './secrets.js';
import { supervisorCheck } from './supervisor.js';
import { testTamperingCheck } from './test-tampering.js';
import { testsCheck } from './tests.js';
import type { Check, CheckInput } from './types.js';
import { unsafeCommandsCheck } from './unsafe-commands.js';

/** One entry per id in CHECK_IDS; a missing one is a compile error, a misnamed one a test failure. */
export const CHECKS: Readonly<Record<CheckId, Check>> = {
  tests: testsCheck,
  regression: regressionCheck,
  held_out: heldOutCheck,
  held_out_values: heldOutValuesCheck,
  no_changes: noChangesCheck,
  test_tampering: testTamperingCheck,
  runner_internals: runnerInternalsCheck,
  module_shadowing: moduleShadowingCheck,
  runner_reach: runnerReachCheck,
  supervisor: supervisorCheck,
  forbidden_paths: forbiddenPathsCheck,
  scope: scopeCheck,
  diff_size: diffSizeCheck,
  unsafe_commands: unsafeCommandsCheck,
  outside_writes: outsideWritesCheck,
  secrets: secretsCheck,
};

/** Runs every check in CHECK_IDS order, each with the severity the task's policy gives it. */
export function runChecks(input: CheckInput): CheckResult[] {
  return CHECK_IDS.map((id) => {
    const outcome = CHECKS[id].run(input);
    return { id, passed: outcome.passed, severity: input.policy.severities[id], message: outcome.message, evidence: outcome.evidence };
  });
}
