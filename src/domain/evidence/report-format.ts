/**
 * The report formats a test command may give (`tests.format`), and the one entry point that reads
 * any of them into the same TestCaseResult evidence, so F2P/P2P, exact ids, the exit-code
 * cross-check and duplicates work the same whatever the runner.
 */
import type { TestFormat, TestReportSource } from '../../core/types/index.js';
import { parseCargoTestJson } from './cargo-json.js';
import { parseGoTestJson } from './go-json.js';
import { parseJUnit } from './junit.js';
import { parsePytestOutput } from './pytest-output.js';
import type { ReportParseResult } from './report-common.js';
import { parseTap } from './tap.js';

export const TEST_FORMATS = ['junit', 'tap', 'go-json', 'cargo-json', 'pytest'] as const satisfies readonly TestFormat[];
export const REPORT_SOURCES = ['stdout', 'file'] as const satisfies readonly TestReportSource[];

const LABELS: Record<TestFormat, string> = {
  junit: 'JUnit report',
  tap: 'TAP stream',
  'go-json': 'go test -json stream',
  'cargo-json': 'libtest JSON stream',
  pytest: 'pytest output',
};

/** What the report is called in messages: `JUnit report`, `TAP stream`, …. */
export function reportLabel(format: TestFormat | undefined): string {
  return LABELS[format ?? 'junit'];
}

export function parseReport(format: TestFormat | undefined, text: string): ReportParseResult {
  switch (format ?? 'junit') {
    case 'junit':
      return parseJUnit(text);
    case 'tap':
      return parseTap(text);
    case 'go-json':
      return parseGoTestJson(text);
    case 'cargo-json':
      return parseCargoTestJson(text);
    case 'pytest':
      return parsePytestOutput(text);
  }
}

/** Whether the report is read from a file (JUnit always; a stream format with `report: file`), rather than stdout. */
export function reportIsFile(spec: { format?: TestFormat; report?: TestReportSource }): boolean {
  return (spec.format ?? 'junit') === 'junit' || spec.report === 'file';
}

/** The fix half of "the test command gives no usable report" messages. */
export function reportInstruction(spec: { format?: TestFormat; report?: TestReportSource; junit?: string }): string {
  const format = spec.format ?? 'junit';
  if (format === 'junit') return `check it writes JUnit XML to ${spec.junit ?? '$CRUCIBLE_JUNIT'}`;
  return spec.report === 'file' ? `check it writes its ${LABELS[format]} to $CRUCIBLE_REPORT` : `check it prints its ${LABELS[format]} on stdout`;
}
