/* Formatting shared by the Markdown writer and the web app (pure, no Node APIs). */
import { pct } from '../../core/format/index.js';
import { UNSCORED_CAUSES, type AgentInfo, type Cause, type GuardAgentCounts } from '../../core/types/index.js';

// Numbers, dollars and durations have one formatter for the terminal, the reports and the web app.
export { count, duration, pct, usd } from '../../core/format/index.js';

/**
 * The score an attempt shows, or undefined where a number would mislead: an attempt that changed
 * nothing (`no_changes`, a nop) or that says nothing about the agent (task, harness or provider
 * error) was not graded on its work, so "score 50" there is noise, not a half pass.
 */
export function meaningfulScore(attempt: { score?: number; cause: Cause }): number | undefined {
  if (attempt.cause === 'no_changes' || UNSCORED_CAUSES.has(attempt.cause)) return undefined;
  return attempt.score;
}

export function interval(low: number | null | undefined, high: number | null | undefined): string {
  if (low === null || low === undefined || high === null || high === undefined) return '';
  return `[${pct(low)}, ${pct(high)}]`;
}

/** Percentage points, signed: `+12 pts`. */
export function points(diff: number | null | undefined): string {
  if (diff === null || diff === undefined || !Number.isFinite(diff)) return '–';
  const v = Math.round(diff * 100);
  return `${v > 0 ? '+' : ''}${v} pts`;
}

export function pValue(p: number | null | undefined): string {
  if (p === null || p === undefined) return '–';
  return p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`;
}

/** `2026-11-30 09:19 UTC`: runs are compared across machines, so times are UTC. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function elapsed(from: string | null | undefined, to: string | null | undefined): number | null {
  if (!from || !to) return null;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? ms : null;
}

/** The paired verdict as a sentence a reader can act on. */
export function pairedSentence(c: {
  a: string;
  b: string;
  verdict: string;
  diff: number | null;
  low: number | null;
  high: number | null;
  pValue: number | null;
  tasks: number;
  note?: string;
}): string {
  const figures =
    c.diff === null
      ? 'no shared scored tasks'
      : `${points(c.diff)} ${c.low !== null && c.high !== null ? `[${points(c.low)}, ${points(c.high)}]` : ''}, ${pValue(c.pValue)}, ${c.tasks} shared task${c.tasks === 1 ? '' : 's'}`.replace(
          '  ',
          ' ',
        );
  const head =
    c.verdict === 'A better'
      ? `${c.a} is better than ${c.b}`
      : c.verdict === 'B better'
        ? `${c.b} is better than ${c.a}`
        : `this run does not separate ${c.a} and ${c.b}`;
  return `${head} (${c.a} − ${c.b}: ${figures})${c.note ? `; ${c.note}` : ''}`;
}

/**
 * An agent's overfitting as a table cell: `2 of 5 passes` failed held-out tests their task keeps
 * informational; `–` when the agent had none (or the stats predate the figure).
 */
export function overfittingCell(a: { overfitting?: { passes: number; failedHeldOut: number } }): string {
  const o = a.overfitting;
  if (!o) return '–';
  return `${o.failedHeldOut} of ${o.passes} pass${o.passes === 1 ? '' : 'es'}`;
}

/** An external agent's identity in one line: `2.1.332 · profile claude-code@1a2b3c4d · model m`. */
export function agentInfoText(info: AgentInfo): string {
  return [info.version ?? 'version unknown', `profile ${info.profile}@${info.profileHash.slice(0, 8)}`, `model ${info.model}`].join(' · ');
}

/** The online guard's fastest–slowest time to detection for an agent, as every report prints it. */
export function detectionRange(c: Pick<GuardAgentCounts, 'detectionMs'>): string {
  return c.detectionMs ? `${c.detectionMs.min}–${c.detectionMs.max} ms` : '–';
}
