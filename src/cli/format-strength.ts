import pc from 'picocolors';
import { InputError } from '../core/errors.js';
import { formatStrengthSummary, summarizeTaskSet, WEAK_STRENGTH, type TaskStrength } from '../features/strength/index.js';
import { fraction } from './adaptive-options.js';
import { wholeNumber } from './args.js';

export const DEFAULT_MAX_MUTANTS = 20;

/** `--strength` and the flags that go with it; undefined without --strength (and then the others are errors). */
export function strengthFlags(opts: {
  strength?: boolean;
  maxMutants?: string;
  seed?: string;
  minStrength?: string;
  adversarial?: boolean;
}): { maxMutants: number; seed: number; minStrength?: number } | undefined {
  if (!opts.strength) {
    const stray =
      opts.maxMutants !== undefined ? '--max-mutants' : opts.seed !== undefined ? '--seed' : opts.minStrength !== undefined ? '--min-strength' : undefined;
    if (stray) throw new InputError(`${stray}: only with --strength (fix: add --strength)`);
    return undefined;
  }
  return {
    maxMutants: wholeNumber('--max-mutants', opts.maxMutants, DEFAULT_MAX_MUTANTS),
    seed: wholeNumber('--seed', opts.seed, 1, 0),
    ...(opts.minStrength === undefined ? {} : { minStrength: fraction('--min-strength', opts.minStrength, '0.8') }),
  };
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;

/** `92% (11/12)`, `40% (2/5) weak`, or `-` with no mutant judged. */
export function formatStrengthCell(t: TaskStrength | undefined): string {
  if (t?.strength === undefined) return '-';
  const text = `${pct(t.strength)} (${t.counts.killed}/${t.counts.killed + t.counts.survived})`;
  return t.strength < WEAK_STRENGTH ? pc.red(`${text} weak`) : pc.green(text);
}

export function formatFlakeCell(t: TaskStrength | undefined): string {
  const f = t?.flake;
  if (!f || f.runs < 2) return '-';
  const text = `${pct(f.rate)}${f.verdictChanged.length > 0 ? ' verdict changed' : ''}`;
  return f.rate > 0 || f.verdictChanged.length > 0 ? pc.yellow(text) : text;
}

/** Under the table: each task's surviving mutants (the wrong fixes it passes), the flaky tests, and the set's summary. */
export function formatStrengthDetail(tasks: readonly TaskStrength[], file: string, minStrength?: number): string {
  const lines: string[] = [];
  for (const t of tasks) {
    const apart = [
      t.counts.unloadable ? `${t.counts.unloadable} did not load` : '',
      t.counts.unapplied ? `${t.counts.unapplied} did not apply` : '',
      t.counts.error ? `${t.counts.error} harness errors` : '',
      t.sameAsOracle ? `${t.sameAsOracle} same as the oracle` : '',
    ].filter(Boolean);
    const head = `${t.taskId}: ${t.skipped ? `no strength (${t.skipped})` : `${t.sampled} of ${t.candidates} mutants graded`}${apart.length ? `, not counted: ${apart.join(', ')}` : ''}`;
    lines.push(head);
    for (const s of t.survivors)
      lines.push(
        `  ${pc.red('survives')} ${s.file}:${s.line} ${s.operator}: ${s.after === null ? `drops \`${s.before.trim()}\`` : `\`${s.before.trim()}\` → \`${s.after.trim()}\``}  ${pc.dim(s.patchFile)}`,
      );
    for (const f of t.flake?.flaky ?? []) lines.push(`  ${pc.yellow('flaky')} ${f.agent}: ${f.id} (${pct(f.rate)} of runs differ)`);
    if (minStrength !== undefined && t.strength !== undefined && t.strength < minStrength) lines.push(`  ${pc.red(`below --min-strength ${minStrength}`)}`);
  }
  lines.push('', `strength: ${formatStrengthSummary(summarizeTaskSet(tasks))}  ${pc.dim(`written to ${file}; surviving mutants' patches beside it`)}`);
  return lines.join('\n');
}
