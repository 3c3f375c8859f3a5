import pc from 'picocolors';
import type { AttemptListItem } from '../features/report/index.js';
import type { Verdict } from '../core/types/index.js';
import { compactDuration as formatDuration } from '../core/format/index.js';

export { count, pct, usd } from '../core/format/index.js';
export { formatDuration };

/** The verdict in its colour, padded to `width` inside the colour codes (a later trim could not remove it there; 0 pads nothing). */
export function colorVerdict(verdict: Verdict, width = 5): string {
  const text = verdict.padEnd(width);
  return verdict === 'PASS' ? pc.green(text) : verdict === 'FAIL' ? pc.red(text) : pc.yellow(text);
}

/** One line, at most `max` characters; the full text is in `crucible show`. */
export function clip(text: string, max: number): string {
  const line = text.replace(/\s*\n\s*/g, ' ');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

function ratio(group: { passed: number; total: number } | null): string {
  return group ? `${group.passed}/${group.total}` : '-';
}

export const ATTEMPT_COLUMNS = ['result', 'task', 'agent', 'trial', 'F2P', 'P2P', 'files', 'prepare', 'agent', 'verify', 'cause'];

/** One attempt as table cells, in ATTEMPT_COLUMNS order. */
export function attemptCells(a: AttemptListItem): string[] {
  return [
    colorVerdict(a.verdict),
    a.taskId,
    a.agent,
    String(a.trial),
    ratio(a.failToPass),
    ratio(a.passToPass),
    a.filesChanged === null ? '-' : String(a.filesChanged),
    formatDuration(a.prepareMs),
    formatDuration(a.agentMs),
    formatDuration(a.verifyMs),
    a.cause === 'passed' ? pc.dim(a.cause) : `${a.cause}: ${clip(a.message, 90)}`,
  ];
}

/** Left-aligned columns sized to their widest cell, ignoring colour codes. */
export function table(header: string[], rows: string[][]): string {
  const visible = (s: string): number => stripAnsi(s).length;
  const widths = header.map((h, i) => Math.max(visible(h), ...rows.map((r) => visible(r[i] ?? ''))));
  const line = (cells: string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat((widths[i] ?? 0) - visible(c)))).join('  ');
  return [pc.bold(line(header)), ...rows.map(line)].join('\n');
}

export function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
}

/** RFC 4180 CSV: fields with commas, quotes or line breaks are quoted, quotes doubled. */
export function csv(rows: ReadonlyArray<ReadonlyArray<string | number | boolean | null | undefined>>): string {
  const field = (v: string | number | boolean | null | undefined): string => {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return rows.map((r) => r.map(field).join(',')).join('\n') + '\n';
}
