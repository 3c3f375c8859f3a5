import type { AttemptResult, TestRunEvidence } from '../types/index.js';

/**
 * The part of an attempt a run keeps in memory after recording it: everything the statistics and
 * the run's tables read, without the bulky evidence (test output tails, per-file diff lines, failing
 * test lists, check evidence) that lives in attempt.json and the history. A 10 000-attempt run holds
 * 10 000 of these, so their size is the run's memory.
 */
export function slimAttempt(a: AttemptResult): AttemptResult {
  return {
    ...a,
    tests: slimTests(a.tests),
    heldOut: slimTests(a.heldOut),
    diff: a.diff ? { ...a.diff, files: [] } : undefined,
    checks: a.checks.map((c) => ({ ...c, evidence: {} })),
    message: a.message.length > 300 ? `${a.message.slice(0, 299)}…` : a.message,
  };
}

function slimTests(t: TestRunEvidence | undefined): TestRunEvidence | undefined {
  if (t === undefined) return undefined;
  return {
    ...t,
    outputTail: '',
    failToPass: { ...t.failToPass, failing: [] },
    passToPass: { ...t.passToPass, failing: [] },
  };
}
