/**
 * Reads pytest's terminal output (`pytest -rA`, with or without `-v`) into test case results, for
 * a run without `--junitxml`. Pure.
 *
 * The source is the "short test summary info" section `-rA` prints at the end: one line per
 * outcome, `PASSED tests/test_x.py::test_a`, `FAILED … - message`, `ERROR …`, `XFAIL …`, `XPASS …`.
 * Ids are the ones pytest's JUnit report would give (junit-id.ts, testIdFromPytestNodeId):
 * `tests.test_x::test_a`, `tests.test_x.TestC::test_in`, `tests.test_x::test_p[1-2]`, a
 * collection error `tests.test_broken`; so a task can switch between the two without rewriting ids.
 * Statuses follow pytest's JUnit report too: ERROR is a failure (marked errored), XFAIL skipped,
 * XPASS passed; an ERROR for a test that PASSED (its teardown failed) makes that one case failed.
 * `-rA` names skipped tests only by file and line; with `-v` their ids are read from the
 * `path::test SKIPPED` lines.
 *
 * The section must be there exactly once and end with pytest's closing line (`1 failed, 4 passed
 * in 0.12s`), whose counts must equal the lines read: a second section (a forged one printed by
 * code under test), an output cut before the closing line, or counts that disagree make the
 * report unusable.
 */
import type { TestCaseResult } from '../../core/types/index.js';
import { testIdFromPytestNodeId } from './junit-id.js';
import { caseOf, linesOf, parseGuarded, ReportFormatError, type ReportParseResult } from './report-common.js';

const HEADER = /^=+ short test summary info =+$/;
/** `==== 1 failed, 4 passed in 0.12s ====`, `1 error in 0.63s` (-q), `no tests ran in 0.01s`. */
const CLOSING = /^=*\s*((?:\d+ [a-z]+(?:, )?)+|no tests ran) in \d+(?:\.\d+)?s(?: \([^)]*\))?\s*=*$/;
const OUTCOME = /^(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED) (.*)$/;

type Outcome = 'PASSED' | 'FAILED' | 'ERROR' | 'XFAIL' | 'XPASS' | 'SKIPPED';

export function parsePytestOutput(text: string): ReportParseResult {
  return parseGuarded('pytest output', text, readOutput);
}

function readOutput(text: string): TestCaseResult[] {
  // eslint-disable-next-line no-control-regex -- pytest colours its output on a terminal
  const lines = linesOf(text).map((l) => l.replace(/\x1b\[[0-9;]*m/g, '').trimEnd());
  const headers = lines.flatMap((l, i) => (HEADER.test(l) ? [i] : []));
  if (headers.length > 1) throw new ReportFormatError(`${headers.length} "short test summary info" sections: one is not pytest's`);
  const start = headers[0];
  const closingAt = lines.findIndex((l, i) => i > (start ?? -1) && CLOSING.test(l));
  if (closingAt === -1) {
    throw new ReportFormatError(
      start === undefined
        ? 'no pytest summary in the output (fix: run pytest with -rA)'
        : "pytest's output ends before its closing summary line: the run was cut short",
    );
  }
  const totals = countsOf(CLOSING.exec(lines[closingAt] ?? '')?.[1] ?? '');
  if (start === undefined) {
    if (totals.size === 0) return [];
    throw new ReportFormatError('pytest ran tests but printed no "short test summary info" (fix: run pytest with -rA)');
  }
  const seen = new Map<Outcome, number>();
  const cases: TestCaseResult[] = [];
  const byId = new Map<string, TestCaseResult>();
  for (const line of lines.slice(start + 1, closingAt)) {
    const match = OUTCOME.exec(line);
    if (!match) continue;
    const outcome = match[1] as Outcome;
    const rest = match[2] ?? '';
    if (outcome === 'SKIPPED') {
      // `SKIPPED [2] tests/test_x.py:7: reason`: a count and a place, not ids.
      seen.set(outcome, (seen.get(outcome) ?? 0) + Number(/^\[(\d+)\]/.exec(rest)?.[1] ?? 1));
      continue;
    }
    seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
    const { nodeId, message } = splitEntry(rest);
    const id = testIdFromPytestNodeId(nodeId);
    const earlier = byId.get(id);
    if (outcome === 'ERROR' && earlier?.status === 'passed') {
      earlier.status = 'failed';
      earlier.errored = true;
      earlier.message = message ?? 'error';
      continue;
    }
    const result = toCase(id, outcome, message);
    byId.set(id, result);
    cases.push(result);
  }
  checkTotals(totals, seen);
  cases.push(...verboseSkips(lines.slice(0, start), totals.get('skipped') ?? 0, new Set(byId.keys())));
  return cases;
}

function toCase(id: string, outcome: Exclude<Outcome, 'SKIPPED'>, message: string | undefined): TestCaseResult {
  switch (outcome) {
    case 'PASSED':
    case 'XPASS':
      return caseOf(id, 'passed');
    case 'FAILED':
      return caseOf(id, 'failed', message ?? 'failed');
    case 'ERROR':
      return { ...caseOf(id, 'failed', message ?? 'error'), errored: true };
    case 'XFAIL':
      return caseOf(id, 'skipped', message ?? 'xfail');
  }
}

/** The node id runs to the first space outside brackets (parameters may hold spaces and ` - `). */
function splitEntry(rest: string): { nodeId: string; message?: string } {
  let depth = 0;
  for (let i = 0; i < rest.length; i++) {
    const ch = rest.charAt(i);
    if (ch === '[') depth++;
    else if (ch === ']') depth = Math.max(0, depth - 1);
    else if (ch === ' ' && depth === 0) {
      const message = /^ - (.*)$/.exec(rest.slice(i))?.[1]?.trim();
      return message ? { nodeId: rest.slice(0, i), message } : { nodeId: rest.slice(0, i) };
    }
  }
  return { nodeId: rest };
}

function countsOf(summary: string): Map<string, number> {
  const counts = new Map<string, number>();
  if (summary === 'no tests ran') return counts;
  for (const part of summary.split(', ')) {
    const [count = '0', kind = ''] = part.split(' ');
    counts.set(kind === 'error' ? 'errors' : kind, Number(count));
  }
  return counts;
}

const TOTAL_OF: Record<Outcome, string> = { PASSED: 'passed', FAILED: 'failed', ERROR: 'errors', XFAIL: 'xfailed', XPASS: 'xpassed', SKIPPED: 'skipped' };

function checkTotals(totals: ReadonlyMap<string, number>, seen: ReadonlyMap<Outcome, number>): void {
  // pytest's default `-r fE` prints the section with failures only.
  if ((totals.get('passed') ?? 0) > 0 && !seen.has('PASSED'))
    throw new ReportFormatError('pytest passed tests but its summary lists no PASSED test (fix: run pytest with -rA)');
  for (const [outcome, total] of Object.entries(TOTAL_OF) as [Outcome, string][]) {
    const claimed = totals.get(total) ?? 0;
    const read = seen.get(outcome) ?? 0;
    if (claimed !== read) throw new ReportFormatError(`pytest's closing line counts ${claimed} ${total} but the summary lists ${read}`);
  }
}

/** `tests/test_x.py::test_s SKIPPED (reason)` lines of `-v`, used only when they account for every skip. */
function verboseSkips(lines: readonly string[], skipped: number, known: ReadonlySet<string>): TestCaseResult[] {
  if (skipped === 0) return [];
  const found: TestCaseResult[] = [];
  for (const line of lines) {
    const text = line.replace(/^\[gw\d+\] \[\s*\d+%\] /, '');
    const { nodeId, message } = splitEntry(text);
    if (!nodeId.includes('::') || !/^SKIPPED\b/.test(text.slice(nodeId.length + 1))) continue;
    const id = testIdFromPytestNodeId(nodeId);
    if (!known.has(id)) found.push(caseOf(id, 'skipped', message));
  }
  return found.length === skipped ? found : [];
}
