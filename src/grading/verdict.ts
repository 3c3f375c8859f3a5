import type { AgentResult, Cause, CheckResult, DiffStats, TestRunEvidence, Verdict } from '../types/index.js';

export interface GradeInput {
  tests: TestRunEvidence;
  diff: DiffStats;
  agentResult: AgentResult;
  checks: CheckResult[];
}

export interface Grade {
  verdict: Verdict;
  cause: Cause;
  message: string;
}

/** How an agent's own stop explains a failure; it never explains a pass. */
const STOP_CAUSES: Partial<Record<AgentResult['stopReason'], Cause>> = {
  timeout: 'agent_timeout',
  max_turns: 'max_turns',
  budget_exceeded: 'budget_exceeded',
  context_exceeded: 'context_exceeded',
  error: 'agent_crashed',
};

/**
 * One verdict and exactly one cause per attempt, on evidence alone. Precedence, first match wins:
 * policy checks (tampering, then other policy) › the agent's own abnormal stop › regression (a
 * pass-to-pass test broke) › no changes › failing or unusable tests › passed. Harness errors never
 * reach this function: the engine records them before grading.
 */
export function grade(input: GradeInput): Grade {
  const { tests, diff, agentResult } = input;
  const failedChecks = input.checks.filter((c) => !c.passed && (c.severity === 'error' || c.severity === 'critical'));
  const tampering = failedChecks.find((c) => c.id === 'test_tampering');
  if (tampering) return fail('tampered', tampering.message);
  const violation = failedChecks.find((c) => c.id !== 'tests' && c.id !== 'regression' && c.id !== 'no_changes');
  if (violation) return fail('policy_violation', `${violation.id}: ${violation.message}`);

  const f2pOk = tests.failToPass.failing.length === 0;
  const p2pOk = tests.passToPass.failing.length === 0;
  const usable = tests.parsed > 0 && tests.invalidReason === undefined && tests.consistent;
  if (usable && f2pOk && p2pOk) return { verdict: 'PASS', cause: 'passed', message: `F2P ${tests.failToPass.passed}/${tests.failToPass.total}, P2P ${tests.passToPass.passed}/${tests.passToPass.total}` };

  const stopCause = STOP_CAUSES[agentResult.stopReason];
  if (stopCause) return fail(stopCause, agentResult.error ?? `agent stopped: ${agentResult.stopReason}`);
  if (usable && !p2pOk) return fail('regression', `pass-to-pass failing: ${describeFailing(tests.passToPass.failing)}`);
  if (diff.filesChanged === 0) return fail('no_changes', `no files changed; fail-to-pass failing: ${describeFailing(tests.failToPass.failing)}`);
  if (!usable) return fail('tests_failed', tests.invalidReason ?? 'test exit code and JUnit report disagree');
  return fail('tests_failed', `fail-to-pass failing: ${describeFailing(tests.failToPass.failing)}`);
}

function fail(cause: Cause, message: string): Grade {
  return { verdict: 'FAIL', cause, message };
}

/** `a (failed), b (missing)`, capped so a report line stays a line. */
export function describeFailing(failing: TestRunEvidence['failToPass']['failing'], max = 5): string {
  const shown = failing.slice(0, max).map((f) => `${f.id} (${f.reason})`);
  if (failing.length > max) shown.push(`… ${failing.length - max} more`);
  return shown.join(', ') || 'none';
}
