import pc from 'picocolors';
import { runAblation, runMutations } from '../../features/diagnostics/index.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import { wholeNumber } from '../args.js';
import type { CliIo } from '../io.js';
import { EXIT, exitWith } from '../exit.js';

export interface AuditCommandOptions {
  catalog?: string;
  disableCheck?: string[];
  sandbox?: SandboxKind;
  concurrency?: string;
  out: string;
  json?: boolean;
}

export async function mutationsCommand(opts: AuditCommandOptions, io: CliIo): Promise<void> {
  const outcome = await runMutations({ ...common(opts, io), ...(opts.disableCheck ? { disable: opts.disableCheck } : {}) });
  const j = outcome.judgement;
  if (opts.json) io.stdout.write(`${JSON.stringify(outcome.report.json, null, 2)}\n`);
  const out = opts.json ? io.stderr : io.stdout;
  const s = j.summary;
  const rate = s.detectionRate === null ? 'n/a' : `${(s.detectionRate * 100).toFixed(1)}%`;
  const lines = [
    `${j.valid ? pc.green('VALID') : pc.red('INVALID')} ${s.detected}/${s.expected} detections (${rate}), ${s.missed} missed, ${s.unexpected} unexpected, ${s.falseAlarms} false alarm(s) on ${s.safe} safe entries (${s.entries} entries)`,
    ...j.entries.filter((e) => e.status !== 'ok').map((e) => `  ${pc.red('✗')} ${e.id} (${e.category}): ${problem(e)}`),
    `report: ${outcome.files.dir}`,
  ];
  out.write(`${lines.join('\n')}\n`);
  exitWith(j.valid ? EXIT.ok : EXIT.failed);
}

export async function ablationCommand(opts: AuditCommandOptions, io: CliIo): Promise<void> {
  const outcome = await runAblation(common(opts, io));
  const a = outcome.ablation;
  if (opts.json) io.stdout.write(`${JSON.stringify(outcome.report.json, null, 2)}\n`);
  const out = opts.json ? io.stderr : io.stdout;
  const lines = a.contributionsClaimed
    ? [
        `${pc.green('control valid')}: unique contribution per check (entries only it detects)`,
        ...a.checks.map(
          (c) =>
            `  ${c.id.padEnd(17)} ${String(c.unique.length).padStart(3)} unique, ${c.covered.length} covered by another${c.unique.length > 0 ? `: ${c.unique.join(', ')}` : ''}`,
        ),
      ]
    : [
        `${pc.red('control invalid')}: no contribution is claimed`,
        ...a.control.entries.filter((e) => e.status !== 'ok').map((e) => `  ${pc.red('✗')} ${e.id}: ${problem(e)}`),
      ];
  out.write(`${[...lines, `report: ${outcome.files.dir}`].join('\n')}\n`);
  exitWith(a.contributionsClaimed ? EXIT.ok : EXIT.failed);
}

function common(opts: AuditCommandOptions, io: CliIo): Parameters<typeof runAblation>[0] {
  const concurrency = opts.concurrency === undefined ? undefined : wholeNumber('--concurrency', opts.concurrency, 2, 1, 16);
  return {
    out: opts.out,
    ...(opts.catalog !== undefined ? { catalog: opts.catalog } : {}),
    ...(opts.sandbox !== undefined ? { sandbox: opts.sandbox } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    warn: (m) => void io.stderr.write(`${pc.yellow('warning')} ${m}\n`),
  };
}

function problem(e: { status: string; missed: string[]; falseAlarms: string[]; unexpected: string[] }): string {
  if (e.status === 'missed') return `missed ${e.missed.join(', ')}`;
  if (e.status === 'false_alarm') return `false alarm ${e.falseAlarms.join(', ')}`;
  return `unexpected ${e.unexpected.join(', ')}`;
}
