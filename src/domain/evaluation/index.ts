/**
 * One verification of a change, for every front end: attempts, `crucible ci`, `crucible tests`,
 * the preflight and diagnostics. `runTestsOnTree` is the one test run (a fresh copy, a fresh HOME,
 * /tmp and results directory, the workspace limits); `evaluateChange` verifies a captured change
 * with it and runs the checks. Verdicts are src/domain/grading's judge(), never made here.
 */
export { evaluateChange, guardChange, type ChangeEvidence, type ChangeInput, type EvaluationSpec } from './evaluate.js';
export { execLimits, heldOutRun, runBaselineHeldOut, runTestsOnTree, testsRun, type TestBench, type TestRun, type TestRunSpec } from './test-run.js';
export { changeBlobs, type ChangeBlobs } from './blobs.js';
