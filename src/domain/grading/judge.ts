import type { AgentResult, CheckResult, ResourceLimitName, TestRunEvidence } from '../../core/types/index.js';
import { resourceLimitOf } from './limit.js';
import { grade, type Grade } from './verdict.js';

/**
 * How an attempt (or a `crucible ci` evaluation) ended, as the harness saw it: the one input of
 * judge(). Every front end that ends an attempt builds one of these; none of them writes a verdict.
 */
export type Outcome =
  /** The agent's workspace or change was past a limit: nothing else is judged. */
  | { kind: 'over_limit'; limit: ResourceLimitName; message: string }
  /** The agent's change could not be captured or checked out: its failure, never the harness's. */
  | { kind: 'unverifiable'; message: string }
  /** The test command gave no usable report after the agent and none at the baseline either (neverRanReason). */
  | { kind: 'never_ran'; reason: string }
  /** The task is broken whatever an agent does (found before the agent, by preflight or baseline). */
  | { kind: 'task_defect'; message: string }
  /** The harness (setup, sandbox, recording, a crash) failed; `phase` names where, when known. */
  | { kind: 'harness_fault'; phase?: string; message: string }
  /** Verification ran: the checks decide, with the agent's stop and any limit hit (grade()). */
  | { kind: 'graded'; checks: readonly CheckResult[]; agentResult?: AgentResult; resourceLimit?: ResourceLimitName };

export type OutcomeKind = Outcome['kind'];

export interface Judgement extends Grade {
  /** With cause resource_exceeded: the limit that explains it. */
  resourceLimit?: ResourceLimitName;
}

/**
 * The one place a verdict is made. The early ends come first (they have no checks to weigh); a
 * graded outcome goes through grade()'s cause order (docs/grading.md#causes).
 */
export function judge(outcome: Outcome): Judgement {
  switch (outcome.kind) {
    case 'over_limit':
      return { verdict: 'FAIL', cause: 'resource_exceeded', message: `${outcome.limit}: ${outcome.message}`, score: 0, resourceLimit: outcome.limit };
    case 'unverifiable':
      return { verdict: 'FAIL', cause: 'tests_failed', message: `verify: ${outcome.message}`, score: 0 };
    case 'never_ran':
      return { verdict: 'ERROR', cause: 'harness_error', message: `verify: ${outcome.reason}` };
    case 'task_defect':
      return { verdict: 'ERROR', cause: 'task_error', message: outcome.message };
    case 'harness_fault':
      return { verdict: 'ERROR', cause: 'harness_error', message: outcome.phase === undefined ? outcome.message : `${outcome.phase}: ${outcome.message}` };
    case 'graded': {
      const { checks, agentResult, resourceLimit } = outcome;
      const graded = grade({ checks: [...checks], ...(agentResult ? { agentResult } : {}), ...(resourceLimit ? { resourceLimit } : {}) });
      return graded.cause === 'resource_exceeded' && resourceLimit ? { ...graded, resourceLimit } : graded;
    }
  }
}

/**
 * A test command that produced no usable report after the agent and none at the baseline either
 * is the task's or the harness's problem, not the agent's.
 */
export function neverRanReason(tests: TestRunEvidence | undefined, baselineRun: TestRunEvidence | undefined): string | undefined {
  if (tests?.invalidReason === undefined || baselineRun?.invalidReason === undefined) return undefined;
  return `the test command gave no usable report at the baseline either (${baselineRun.invalidReason}); check tests.command`;
}

/**
 * What verification produced, as an outcome: a task defect when the tests could not start, never ran when neither run gave a report, graded
 * otherwise, with the limit that explains a failure (resourceLimitOf). The live engine and a trace
 * replay both build it here.
 */
export function verifiedOutcome(input: {
  checks: readonly CheckResult[];
  tests: TestRunEvidence | undefined;
  baselineTests: TestRunEvidence | undefined;
  heldOut: TestRunEvidence | undefined;
  commands: ReadonlyArray<{ limitExceeded?: ResourceLimitName }>;
  agentResult: AgentResult | undefined;
}): Extract<Outcome, { kind: 'never_ran' | 'task_defect' | 'graded' }> {
  // The verifier's program itself could not be executed (the sandbox's own errno, which code under
  // test cannot fake), or could not start on either side: no test ran, so it is no agent's FAIL.
  const notStarted = input.tests?.notStarted;
  if (notStarted !== undefined && (notStarted.proven || input.baselineTests?.notStarted !== undefined))
    return { kind: 'task_defect', message: `task error: the tests could not start, so no test ran (${notStarted.reason}); check tests.command or tests.exec` };
  const reason = neverRanReason(input.tests, input.baselineTests);
  if (reason !== undefined) return { kind: 'never_ran', reason };
  const { agentResult } = input;
  const resourceLimit = resourceLimitOf(agentResult?.limit, input.commands, input.tests, input.heldOut);
  return { kind: 'graded', checks: input.checks, ...(agentResult ? { agentResult } : {}), ...(resourceLimit ? { resourceLimit } : {}) };
}
