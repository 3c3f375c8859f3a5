/**
 * Per agent, what the online guard saw over a run's attempts: the counts summary.json and the reports
 * carry (terminal, Markdown, HTML, report.json). Pure: reads the `guard` summary of each attempt record.
 */
import type { AttemptResult, GuardAgentCounts } from '../../core/types/index.js';

export type { GuardAgentCounts } from '../../core/types/index.js';

export function guardCounts(attempts: readonly Pick<AttemptResult, 'agent' | 'guard'>[]): GuardAgentCounts[] {
  const byAgent = new Map<string, GuardAgentCounts>();
  for (const { agent, guard } of attempts) {
    if (!guard) continue;
    const c = byAgent.get(agent) ?? { agent, mode: guard.mode, attempts: 0, incidents: 0, findings: 0, blocked: 0, stopped: 0, auditOnly: 0 };
    c.attempts++;
    if (guard.incidents > 0) c.incidents++;
    c.findings += guard.incidents;
    c.blocked += guard.blocked;
    if (guard.stopped) c.stopped++;
    c.auditOnly += guard.auditOnly;
    if (guard.detectionMs) {
      c.detectionMs = c.detectionMs
        ? { min: Math.min(c.detectionMs.min, guard.detectionMs.min), max: Math.max(c.detectionMs.max, guard.detectionMs.max) }
        : { ...guard.detectionMs };
    }
    byAgent.set(agent, c);
  }
  return [...byAgent.values()];
}

/** One line per agent, as the terminal summary and the Markdown report print it. */
export function guardLine(c: GuardAgentCounts): string {
  const detection = c.detectionMs ? `, detected in ${c.detectionMs.min}–${c.detectionMs.max} ms` : '';
  return `${c.incidents} of ${c.attempts} attempt(s) with incidents (${c.findings} finding(s)): ${c.stopped} stopped, ${c.blocked} command(s) blocked, ${c.auditOnly} audit-only${detection}`;
}
