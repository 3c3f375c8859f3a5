/**
 * Turns one finished test command (exit status, output, JUnit text) into `TestRunEvidence`.
 * Pure: run-tests.ts executes the command and hands the results here. The F2P/P2P rules live in
 * test-outcome-groups.ts and the id rule in junit-id.ts; both are re-exported for callers.
 */
import { cutOutput } from '../../core/format/index.js';
import type { TestCaseResult, TestFormat, TestRunEvidence } from '../../core/types/index.js';
import { parseReport, reportLabel } from './report-format.js';
import { summaryFailures } from './runner-summary.js';
import { classifyAsMissing, classifyTests, duplicateIds, type TestSelection } from './test-outcome-groups.js';

export { classifyTests, duplicateIds, listTestIds, type TestClassification, type TestSelection } from './test-outcome-groups.js';
export { junitTestId, testIdFromPytestNodeId } from './junit-id.js';
export { parseJUnit, type JUnitParseResult } from './junit.js';

/**
 * How much of the combined output the evidence keeps for the report: its head, its tail and its
 * failure lines wherever they are (format/output-cut.ts), each cut marked.
 */
export const OUTPUT_TAIL_CHARS = 4096;

export interface TestRunInput {
  command: string;
  /** `null` when the process did not exit on its own (killed by a signal or on timeout). */
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** Combined stdout and stderr. */
  output: string;
  /**
   * The report's text in `format` (JUnit XML by default, or the TAP, go, cargo or pytest stream);
   * `undefined` when the command wrote none.
   */
  junitXml: string | undefined;
  /** Undefined means `junit`. */
  format?: TestFormat;
  /** Why there is no report text although a file was there (e.g. it was too large to read). */
  reportProblem?: string;
  /** The command never started (start-failure.ts): the run is no evidence. */
  notStarted?: TestRunEvidence['notStarted'];
  spec: TestSelection;
}

/**
 * Reading the result:
 *
 * - `invalidReason` set (timeout, no exit code, no or unreadable report, zero test cases): the run is
 *   no evidence at all. Every listed F2P/P2P id is reported `missing` (with `all_others`, every
 *   parsed id outside F2P), so nothing can read it as a pass; `parsed` still counts whatever cases
 *   were read, for the report.
 * - `consistent: false`: the exit code and the report disagree. Either the command failed
 *   (non-zero) yet no parsed case failed — something broke that the report does not show: node's
 *   runner drops a parent test's own failure, jest-junit omits a file that could not load unless
 *   `reportTestSuiteErrors` is on, a crash after the report was written, or a report written by
 *   someone other than the runner — or it succeeded (zero) while a parsed case failed, which means
 *   the command hides failures (`|| true`, a wrapper that ignores the status). A caller must never
 *   grade an inconsistent run as a pass, even when every F2P and P2P id passed; the F2P/P2P outcome
 *   stays useful to say what did run. A missing exit code (`null`) is never consistent.
 */
export function buildTestEvidence(input: TestRunInput): TestRunEvidence {
  return evaluateTestRun(input).evidence;
}

/** buildTestEvidence, also handing back the parsed cases (undefined when there was no readable report). */
export function evaluateTestRun(input: TestRunInput): { evidence: TestRunEvidence; cases?: TestCaseResult[] } {
  const report = input.junitXml === undefined ? undefined : parseReport(input.format, input.junitXml);
  const cases = report?.cases ?? [];
  const invalidReason = whyInvalid(input, report?.error, cases.length) ?? summaryContradiction(input, cases);
  const groups =
    invalidReason === undefined
      ? classifyTests(cases, input.spec)
      : classifyAsMissing(
          input.spec,
          cases.map((c) => c.id),
        );
  const evidence: TestRunEvidence = {
    command: input.command,
    exitCode: input.exitCode,
    timedOut: input.timedOut,
    durationMs: input.durationMs,
    parsed: cases.length,
    consistent: exitCodeAgrees(input.exitCode, cases),
    failToPass: groups.failToPass,
    passToPass: groups.passToPass,
    outputTail: cutOutput(input.output, { maxChars: OUTPUT_TAIL_CHARS }),
  };
  if (invalidReason !== undefined) evidence.invalidReason = invalidReason;
  if (input.notStarted !== undefined) evidence.notStarted = input.notStarted;
  const duplicates = duplicateIds(cases);
  if (duplicates !== undefined) evidence.duplicates = duplicates;
  return report === undefined || report.error !== undefined ? { evidence } : { evidence, cases };
}

function whyInvalid(input: TestRunInput, parseError: string | undefined, parsed: number): string | undefined {
  const label = reportLabel(input.format);
  if (input.notStarted !== undefined) return `the test command could not start: ${input.notStarted.reason}`;
  if (input.timedOut) return `test command timed out after ${Math.round(input.durationMs)} ms`;
  if (input.exitCode === null) return 'test command ended without an exit code (killed by a signal)';
  if (input.junitXml === undefined) return input.reportProblem ?? `test command wrote no ${label}`;
  if (parseError !== undefined) return `${label} unreadable: ${parseError}`;
  if (parsed === 0) return `${label} contains no test cases`;
  return undefined;
}

function summaryContradiction(input: TestRunInput, cases: readonly TestCaseResult[]): string | undefined {
  const failed = summaryFailures(input.output);
  if (failed === undefined || failed === 0 || cases.some((c) => c.status === 'failed')) return undefined;
  return `the runner's own summary reports ${failed} failure(s) but the ${reportLabel(input.format)} has none: the report was changed after the runner wrote it`;
}

function exitCodeAgrees(exitCode: number | null, cases: readonly TestCaseResult[]): boolean {
  if (exitCode === null) return false;
  const anyFailed = cases.some((c) => c.status === 'failed');
  return (exitCode === 0) === !anyFailed;
}
