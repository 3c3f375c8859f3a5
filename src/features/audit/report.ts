import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { writeFileAtomic } from '../../domain/run-dir/index.js';
import type { AgentContract } from './contract.js';
import type { AgentAudit, Departure, FamilyAudit, TrialOutcome } from './judge.js';

export const AUDIT_SCHEMA_VERSION = 1;

/** audit.json: what was audited against what, and where it departed. Keys in a fixed order. */
export interface AuditReport {
  schemaVersion: typeof AUDIT_SCHEMA_VERSION;
  /** The engine run's id; the report lives in `<out>/audit/<id>/`, the attempts in `<out>/validate/<id>/`. */
  id: string;
  registry: { name: string; version: string; file: string | null };
  taskSet: string;
  /** Set when the input was a pack: the archive as given and its digest. */
  pack?: { archive: string; archiveDigest: string; rootDigest: string };
  runs: number;
  /** The engine run with the attempts, relative to the state directory (`validate/<id>`). */
  runDir: string;
  conform: boolean;
  families: FamilyAudit[];
  /** Tasks of the task set no family selects: not audited. */
  unregistered: string[];
  taskErrors: Array<{ taskId: string; defects: Array<{ field: string; problem: string; fix: string }> }>;
}

/** Writes audit.json and audit.md into `<stateDir>/audit/<id>/` and returns that directory. */
export async function writeAuditReport(stateDir: string, report: AuditReport): Promise<string> {
  // The id is the engine's run id (timestamp-hex); anything else must not pick a directory.
  if (!/^[0-9A-Za-z][0-9A-Za-z-]*$/.test(report.id)) throw new Error(`audit id ${JSON.stringify(report.id)} is not a run id`);
  const dir = join(resolve(stateDir), 'audit', report.id);
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(join(dir, 'audit.json'), `${JSON.stringify(report, null, 2)}\n`);
  await writeFileAtomic(join(dir, 'audit.md'), auditMarkdown(report));
  return dir;
}

export function describeContract(c: AgentContract): string {
  const checks = [
    ...(c.mustPass === 'all' ? ['all checks pass'] : c.mustPass.length ? [`pass: ${c.mustPass.join(', ')}`] : []),
    ...(c.mustFail.length ? [`fail: ${c.mustFail.join(', ')}`] : []),
  ];
  return [`${c.verdict}${c.cause ? ` ${c.cause}` : ''}`, ...checks].join('; ');
}

export function describeOutcome(o: TrialOutcome, trials: number): string {
  return `${o.verdict} ${o.cause}${o.failedChecks.length ? ` [failed: ${o.failedChecks.join(', ')}]` : ''} ×${o.count}/${trials}`;
}

export function describeDeparture(d: Departure): string {
  if (d.field === 'attempts') return `attempts: expected ${d.expected}, recorded ${d.seen}`;
  const what = d.field === 'check' ? `check ${d.check ?? ''}` : d.field;
  return `${what}: expected ${d.expected}, seen ${d.seen} in ${d.count}/${d.of}`;
}

/** One line per task and agent that did not conform, for the terminal and the Markdown. */
export function agentStatus(a: AgentAudit): 'conform' | 'departs' | 'unstable' | 'departs, unstable' {
  const departs = a.departures.length > 0;
  return departs && a.unstable ? 'departs, unstable' : departs ? 'departs' : a.unstable ? 'unstable' : 'conform';
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function auditMarkdown(r: AuditReport): string {
  const lines = [
    `# Audit ${r.id}: ${r.conform ? 'conforms' : 'departs from its contract'}`,
    '',
    `Registry **${cell(r.registry.name)}** ${r.registry.version}${r.registry.file ? ` (\`${cell(r.registry.file)}\`)` : ' (default contract)'}; task set \`${cell(r.taskSet)}\`${r.pack ? `; pack \`${cell(r.pack.archive)}\` (sha256 ${r.pack.archiveDigest})` : ''}; ${r.runs} trial${r.runs === 1 ? '' : 's'} per agent. Attempts: \`<out>/${cell(r.runDir)}\`.`,
    '',
    '| family | version | tasks | departing | unstable |',
    '|---|---|---|---|---|',
    ...r.families.map((f) => `| ${cell(f.id)} | ${f.version} | ${f.tasks.length} | ${f.departing} | ${f.unstable} |`),
    '',
  ];
  for (const f of r.families) {
    lines.push(`## ${cell(f.id)} ${f.version}`, '', '| task | agent | status | expected | seen | departures |', '|---|---|---|---|---|---|');
    for (const t of f.tasks) {
      for (const a of t.agents) {
        lines.push(
          `| ${cell(t.taskId)} | ${cell(a.agent)} | ${agentStatus(a)} | ${cell(describeContract(a.expected))} | ${cell(a.outcomes.map((o) => describeOutcome(o, a.trials)).join('<br>') || '-')} | ${cell(a.departures.map(describeDeparture).join('<br>') || '-')} |`,
        );
      }
    }
    lines.push('');
  }
  if (r.unregistered.length) lines.push(`Not in any family (not audited): ${r.unregistered.map((id) => `\`${cell(id)}\``).join(', ')}`, '');
  if (r.taskErrors.length) {
    lines.push('## Broken tasks', '');
    for (const e of r.taskErrors) for (const d of e.defects) lines.push(`- \`${cell(e.taskId)}\` ${cell(d.field)}: ${cell(d.problem)} (fix: ${cell(d.fix)})`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}
