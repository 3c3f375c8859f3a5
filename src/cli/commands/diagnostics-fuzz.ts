import { relative } from 'node:path';
import { fuzzMarkdown, runFuzz, writeDiagnosticReport } from '../../features/diagnostics/index.js';
import { wholeNumberOption } from './whole-number-option.js';
import type { CliIo } from '../io.js';
import { EXIT, exitWith } from '../exit.js';

export interface FuzzCommandOptions {
  seed?: string;
  count?: string;
  /** Crucible's state directory; reports go to `<out>/diagnostics/fuzz/seed-<seed>-n<count>/`. */
  out: string;
  json?: boolean;
}

export const DEFAULT_FUZZ_SEED = 7;
export const DEFAULT_FUZZ_COUNT = 500;

/**
 * `crucible diagnostics fuzz`: exit 0 when every variant's checks said what was expected, 1 on any
 * disagreement, 2 on bad options. The report's directory is named by seed and count, so a rerun
 * replaces it with identical bytes.
 */
export async function fuzzCommand(opts: FuzzCommandOptions, io: CliIo): Promise<void> {
  const seed = wholeNumberOption('--seed', opts.seed, DEFAULT_FUZZ_SEED, 0, 2 ** 32 - 1);
  const count = wholeNumberOption('--count', opts.count, DEFAULT_FUZZ_COUNT, 1, 100_000);
  const report = await runFuzz({ seed, count });
  const files = await writeDiagnosticReport(opts.out, 'fuzz', `seed-${seed}-n${count}`, { json: report, markdown: fuzzMarkdown(report) });
  if (opts.json) {
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const limits = report.knownLimits.filter((k) => k.class === 'known-limit').length;
    const head =
      report.verdict === 'agree'
        ? `fuzz seed ${seed}: ${count} variants, ${report.tricks} tricks, every check agreed (${limits} known limits listed in the report)`
        : `fuzz seed ${seed}: ${report.disagreements.length} of ${count} variants disagree`;
    const shown = report.disagreements.slice(0, 20).map(
      (v) =>
        `  ${v.id} ${v.dimension}/${v.trick}: ${v.summary} — ${v.judgements
          .filter((j) => j.actual !== j.expected)
          .map((j) => `${j.check} expected ${j.expected}, got ${j.actual}`)
          .join('; ')}`,
    );
    const more = report.disagreements.length > shown.length ? [`  … ${report.disagreements.length - shown.length} more in the report`] : [];
    io.stdout.write(`${[head, ...shown, ...more, `report: ${relative(io.cwd, files.markdown) || files.markdown}`].join('\n')}\n`);
  }
  exitWith(report.verdict === 'agree' ? EXIT.ok : EXIT.failed);
}
