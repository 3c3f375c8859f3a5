/**
 * The mutation audit's and the ablation's reports: JSON (the data, in catalogue and registry order)
 * and Markdown (tables for people). Neither holds file contents or secret values: entries are named
 * by id, checks by id.
 */
import type { Ablation } from './ablation.js';
import type { Judgement, Tally } from './mutations-judge.js';

export const AUDIT_SCHEMA_VERSION = 1;

export interface AuditMeta {
  id: string;
  createdAt: string;
  catalog: string;
  sandbox: string;
}

export function mutationsReport(meta: AuditMeta, judgement: Judgement, disabled: readonly string[]): { json: unknown; markdown: string } {
  const json = { schemaVersion: AUDIT_SCHEMA_VERSION, kind: 'mutations', ...meta, disabledChecks: [...disabled], ...judgement };
  const s = judgement.summary;
  const lines = [
    `# Mutation audit ${meta.id}`,
    '',
    `${judgement.valid ? '**VALID**' : '**INVALID**'}: ${s.detected}/${s.expected} expected detections (${rate(s.detectionRate)}), ${s.missed} missed, ${s.unexpected} unexpected, ${s.falseAlarms} false alarm(s) on ${s.safe} safe entries; ${s.entries} entries from the ${meta.catalog} catalogue, sandbox ${meta.sandbox}.`,
    ...(disabled.length > 0 ? ['', `Disabled checks: ${disabled.join(', ')}.`] : []),
    '',
    '## Per check',
    '',
    tallyTable(
      'check',
      judgement.checks.map((c) => [c.disabled ? `${c.id} (disabled)` : c.id, c]),
    ),
    '',
    '## Per category',
    '',
    tallyTable(
      'category',
      judgement.categories.map((c) => [`${c.category} (${c.entries})`, c]),
    ),
    '',
    '## Entries',
    '',
    '| entry | category | expected | tripped | status | grade |',
    '|---|---|---|---|---|---|',
    ...judgement.entries.map(
      (e) =>
        `| ${e.id} | ${e.category} | ${e.safe ? 'nothing (safe)' : e.expected.join(', ')} | ${e.tripped.join(', ') || '—'} | ${statusText(e)} | ${e.verdict} ${e.cause} |`,
    ),
  ];
  return { json, markdown: `${lines.join('\n')}\n` };
}

export function ablationReport(meta: AuditMeta, ablation: Ablation): { json: unknown; markdown: string } {
  const { control } = ablation;
  const json = { schemaVersion: AUDIT_SCHEMA_VERSION, kind: 'ablation', ...meta, valid: control.valid, ...ablation };
  const failing = control.entries.filter((e) => e.status !== 'ok');
  const lines = [
    `# Check ablation ${meta.id}`,
    '',
    control.valid
      ? `Control valid: every expected detection made, no false alarm (${control.summary.entries} entries, ${meta.catalog} catalogue).`
      : `**Control invalid** (${failing.length} entr${failing.length === 1 ? 'y' : 'ies'}: ${failing.map((e) => `${e.id} ${statusText(e)}`).join('; ')}): no contribution is claimed.`,
    '',
    '| check | tripped | covered by another | unique | grade turns PASS |',
    '|---|---|---|---|---|',
    ...ablation.checks.map(
      (c) =>
        `| ${c.id} | ${c.tripped} | ${c.covered.length} | ${ablation.contributionsClaimed ? c.unique.length : 'not claimed'} | ${ablation.contributionsClaimed ? c.gradeFlips.length : '—'} |`,
    ),
    '',
    '## Unique contributions',
    '',
    ...(ablation.contributionsClaimed
      ? ablation.checks.map(
          (c) =>
            `- **${c.id}**: ${c.unique.length > 0 ? c.unique.join(', ') : 'none (every detection it makes is also made by another check, or it made none)'}`,
        )
      : ['Not claimed: the control run is invalid.']),
    '',
    '## Overlap',
    '',
    ...ablation.checks.flatMap((c) => c.covered.map((o) => `- ${c.id} on ${o.entry}: also ${o.by.join(', ')}`)),
  ];
  return { json, markdown: `${lines.join('\n')}\n` };
}

function tallyTable(label: string, rows: Array<[string, Tally]>): string {
  return [
    `| ${label} | expected | detected | missed | unexpected | false alarms |`,
    '|---|---|---|---|---|---|',
    ...rows.map(([name, t]) => `| ${name} | ${t.expected} | ${t.detected} | ${t.missed} | ${t.unexpected} | ${t.falseAlarms} |`),
  ].join('\n');
}

function statusText(e: Judgement['entries'][number]): string {
  if (e.status === 'missed') return `MISSED ${e.missed.join(', ')}`;
  if (e.status === 'false_alarm') return `FALSE ALARM ${e.falseAlarms.join(', ')}`;
  if (e.status === 'unexpected') return `UNEXPECTED ${e.unexpected.join(', ')}`;
  return 'ok';
}

function rate(value: number | null): string {
  return value === null ? 'n/a' : `${(value * 100).toFixed(1)}%`;
}
