/**
 * A task set's strength summed up for a line of output, report.md and the web pages (which import
 * this module alone: it must stay free of Node built-ins).
 */
import type { StrengthSummary } from '../../core/types/index.js';

export type { StrengthSummary };

/** What a summary reads of a task's strength (judge.ts's TaskStrength, without pulling its module graph into the web bundle). */
export interface StrengthEntry {
  taskId: string;
  strength?: number;
  survivors: readonly unknown[];
  flake?: { rate: number; verdictChanged: readonly string[] };
}

/** Below this a task is called weak: more than one near-miss fix in five gets through its tests. */
export const WEAK_STRENGTH = 0.8;

export function summarizeTaskSet(tasks: readonly StrengthEntry[]): StrengthSummary {
  const measured = tasks.filter((t): t is StrengthEntry & { strength: number } => t.strength !== undefined);
  const sorted = measured.map((t) => t.strength).sort((a, b) => a - b);
  const weakest = [...measured]
    .sort((a, b) => a.strength - b.strength || a.taskId.localeCompare(b.taskId))
    .filter((t) => t.strength < 1)
    .slice(0, 3)
    .map((t) => ({ taskId: t.taskId, strength: t.strength, survivors: t.survivors.length }));
  return {
    measured: measured.length,
    ...(sorted.length > 0 ? { median: middle(sorted) } : {}),
    weakest,
    flakeRate: Math.max(0, ...tasks.map((t) => t.flake?.rate ?? 0)),
    unstable: tasks.filter((t) => (t.flake?.verdictChanged.length ?? 0) > 0).map((t) => t.taskId),
  };
}

/** `median 0.82 (6 tasks); weakest: a 0.40, b 0.75` */
export function formatStrengthSummary(s: StrengthSummary): string {
  if (s.median === undefined) return 'not measured (crucible validate --strength)';
  const pct = (x: number): string => `${Math.round(x * 100)}%`;
  const weakest = s.weakest.length > 0 ? `; weakest: ${s.weakest.map((w) => `${w.taskId} ${pct(w.strength)} (${w.survivors} surviving)`).join(', ')}` : '';
  const flake = s.flakeRate > 0 ? `; flake rate up to ${pct(s.flakeRate)}` : '';
  const unstable = s.unstable.length > 0 ? `; verdict changed between identical runs: ${s.unstable.join(', ')}` : '';
  return `median ${pct(s.median)} over ${s.measured} task${s.measured === 1 ? '' : 's'}${weakest}${flake}${unstable}`;
}

/** The median of sorted values (the mean of the two middle ones for an even count). */
function middle(sorted: readonly number[]): number {
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
