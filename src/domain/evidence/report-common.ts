/**
 * What the stream-format parsers (tap.ts, go-json.ts, cargo-json.ts, pytest-output.ts) share: the
 * result shape (the same as parseJUnit's), the one error they throw, and message trimming.
 */
import type { TestCaseResult } from '../../core/types/index.js';
import { MAX_JUNIT_CHARS, MAX_MESSAGE_CHARS } from './junit.js';

export interface ReportParseResult {
  /** In stream order. Empty whenever `error` is set. */
  cases: TestCaseResult[];
  /** One line saying why the report cannot be trusted or read. */
  error?: string;
}

/** Thrown by a parser for a stream that is not honest evidence; caught by {@link parseGuarded}. */
export class ReportFormatError extends Error {}

/** Streams are held to the JUnit limit: the same text, in another shape. */
export const MAX_REPORT_CHARS = MAX_JUNIT_CHARS;
const MAX_ERROR_CHARS = 200;

/** Runs a parser, turning a thrown ReportFormatError (or anything else) into a one-line `error`. */
export function parseGuarded(label: string, text: string, parse: (text: string) => TestCaseResult[]): ReportParseResult {
  try {
    if (typeof text !== 'string') throw new ReportFormatError(`${label} is not text`);
    if (text.length > MAX_REPORT_CHARS) throw new ReportFormatError(`${label} has ${text.length} characters, over the limit of ${MAX_REPORT_CHARS}`);
    return { cases: parse(text.replace(/^\uFEFF/, '')) };
  } catch (error) {
    const reason = error instanceof ReportFormatError ? error.message : `${label} parser failed: ${error instanceof Error ? error.message : String(error)}`;
    return { cases: [], error: truncate(reason.replace(/\s+/g, ' ').trim(), MAX_ERROR_CHARS) };
  }
}

/** The first non-empty line, cut to the message limit; undefined when there is none. */
export function firstLine(text: string | undefined): string | undefined {
  for (const raw of (text ?? '').split('\n')) {
    const line = raw.trim();
    if (line !== '') return truncate(line, MAX_MESSAGE_CHARS);
  }
  return undefined;
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Lines without their line ending; a `\r` before the `\n` goes too. */
export function linesOf(text: string): string[] {
  return text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** A case with the message set only when there is one. */
export function caseOf(id: string, status: TestCaseResult['status'], message?: string, durationMs?: number): TestCaseResult {
  const result: TestCaseResult = { id, status };
  if (message !== undefined) result.message = truncate(message, MAX_MESSAGE_CHARS);
  if (durationMs !== undefined && Number.isFinite(durationMs) && durationMs >= 0) result.durationMs = Math.round(durationMs * 1000) / 1000;
  return result;
}

/**
 * The cases a stream parser adds for a run that was cut short (`[no plan]`, `[did not run] #3`,
 * `[bail out]`, go's `pkg::[build failed]`, cargo's `[suite 2 did not finish]`): not tests of the
 * task, evidence that the run ended early. They fail the run they appear in like any case.
 */
const RUN_MARKER =
  /(?:^|::| > )\[(?:no plan|bail out|build failed|package failed|setup failed|did not finish|suite \d+ did not finish|did not run\] #\d+(?:\.\.#\d+)?)\]?$/;

export function isRunMarkerId(id: string): boolean {
  return RUN_MARKER.test(id);
}
