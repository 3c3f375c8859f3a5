import pc from 'picocolors';
import type { AttemptResult, TestGroupOutcome, Verdict } from '../types/index.js';

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m${Math.round((ms % 60_000) / 1000)}s`;
}

export function colorVerdict(verdict: Verdict): string {
  const text = verdict.padEnd(5);
  return verdict === 'PASS' ? pc.green(text) : verdict === 'FAIL' ? pc.red(text) : pc.yellow(text);
}

function ratio(group: TestGroupOutcome | undefined): string {
  return group ? `${group.passed}/${group.total}` : '-';
}

export const ATTEMPT_COLUMNS = ['result', 'task', 'agent', 'trial', 'F2P', 'P2P', 'files', 'prepare', 'agent', 'verify', 'cause'];

/** One attempt as table cells, in ATTEMPT_COLUMNS order. */
export function attemptCells(a: AttemptResult): string[] {
  return [
    colorVerdict(a.verdict),
    a.taskId,
    a.agent,
    String(a.trial),
    ratio(a.tests?.failToPass),
    ratio(a.tests?.passToPass),
    a.diff ? String(a.diff.filesChanged) : '-',
    formatDuration(a.timings.prepareMs),
    formatDuration(a.timings.agentMs),
    formatDuration(a.timings.verifyMs),
    a.cause === 'passed' ? pc.dim(a.cause) : `${a.cause}: ${a.message}`,
  ];
}

/** Left-aligned columns sized to their widest cell, ignoring colour codes. */
export function table(header: string[], rows: string[][]): string {
  const visible = (s: string): number => stripAnsi(s).length;
  const widths = header.map((h, i) => Math.max(visible(h), ...rows.map((r) => visible(r[i] ?? ''))));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat((widths[i] ?? 0) - visible(c)))).join('  ');
  return [pc.bold(line(header)), ...rows.map(line)].join('\n');
}

function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u001b\[[0-9;]*m/g, '');
}
