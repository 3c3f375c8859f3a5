import type { ResourceLimitName, TestRunEvidence } from '../../core/types/index.js';

/**
 * The limit that explains a failure, if one was hit: the agent's own stop first, then the first of
 * its commands that hit one, then its code under test (verification, held-out). The live engine
 * and a trace replay both ask this.
 */
export function resourceLimitOf(
  agentLimit: ResourceLimitName | undefined,
  commands: ReadonlyArray<{ limitExceeded?: ResourceLimitName }>,
  tests: TestRunEvidence | undefined,
  heldOut: TestRunEvidence | undefined,
): ResourceLimitName | undefined {
  return agentLimit ?? commands.find((c) => c.limitExceeded !== undefined)?.limitExceeded ?? tests?.limitExceeded ?? heldOut?.limitExceeded;
}
