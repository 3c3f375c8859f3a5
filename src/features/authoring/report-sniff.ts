/**
 * What a test run's output looks like, read from the output itself: which report format it is (a
 * TAP plan and test points, go test's JSON events, libtest's JSON, pytest's summary) and a short
 * description for the one-line error when it is none of them. `crucible init` uses it to confirm
 * the format it chose from the project's configuration, never to grade anything: grading reads
 * the report the task's format names, exactly as before.
 */
import type { InitFormat } from './init-detect.js';

export interface OutputShape {
  /** The stream format the output is in, when it is one Crucible reads. */
  format?: InitFormat;
  /** What the output looks like, for messages: `a TAP stream (plan 1..5, 5 test points)`. */
  looksLike: string;
}

// eslint-disable-next-line no-control-regex -- runners colour their output on a terminal
const ANSI = /\u001b\[[0-9;]*m/g;

export function sniffOutput(output: string): OutputShape {
  const lines = output.replace(ANSI, '').split(/\r?\n/);
  const points = lines.filter((l) => /^\s*(not )?ok\b/.test(l)).length;
  const plan = lines.map((l) => /^\s*1\.\.(\d+)\b/.exec(l)).find((m) => m !== null);
  if (points > 0 && (plan || lines.some((l) => /^TAP version \d+/i.test(l)))) {
    return { format: 'tap', looksLike: `a TAP stream (${plan ? `plan 1..${plan[1]}, ` : ''}${points} test point${points === 1 ? '' : 's'})` };
  }
  const json = lines.filter((l) => l.trimStart().startsWith('{')).map(jsonObject);
  if (json.some((o) => typeof o?.Action === 'string' && ('Package' in o || 'Test' in o))) return { format: 'go-json', looksLike: "go test's JSON events" };
  if (json.some((o) => (o?.type === 'test' || o?.type === 'suite') && typeof o.event === 'string'))
    return { format: 'cargo-json', looksLike: "libtest's JSON events" };
  if (lines.some((l) => /short test summary info/.test(l))) return { format: 'pytest', looksLike: "pytest's output with its short test summary" };
  if (lines.some((l) => /^=+ .*\b(passed|failed|error)\b.* in [\d.]+s/.test(l))) return { looksLike: "pytest's output without a per-test summary (-rA)" };
  const last = lines
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .pop();
  if (last === undefined) return { looksLike: 'empty' };
  return {
    looksLike: `plain text with no per-test results Crucible reads (no JUnit file, TAP plan, go or libtest JSON, pytest summary); it ends with "${last.slice(0, 80)}"`,
  };
}

function jsonObject(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The exact line(s) to add under `tests:` so the task reads the report the output is in. */
export function formatLine(format: InitFormat | undefined): string {
  return format === undefined ? '' : `format: ${format}`;
}
