import { relative } from 'node:path';
import { matrixStressMarkdown, runMatrixStress, writeDiagnosticReport } from '../../features/diagnostics/index.js';
import { newRunId } from '../../engine/index.js';
import { wholeNumberOption } from './whole-number-option.js';
import type { CliIo } from '../io.js';
import { EXIT, exitWith } from '../exit.js';

export interface MatrixStressCommandOptions {
  attempts?: string;
  concurrency?: string;
  /** Crucible's state directory; the report goes to `<out>/diagnostics/matrix-stress/<id>/`. */
  out: string;
  json?: boolean;
  /** `--no-fail-fast`: skip the second, fail-fast run. */
  failFast?: boolean;
}

export const DEFAULT_STRESS_ATTEMPTS = 1000;
export const DEFAULT_STRESS_CONCURRENCY = 4;

/**
 * `crucible diagnostics matrix-stress`: exit 0 when every integrity check passed, 1 when one failed,
 * 2 on bad options. The synthetic runs live in a temporary state directory, never in the user's
 * history; only the report is written under --out.
 */
export async function matrixStressCommand(opts: MatrixStressCommandOptions, io: CliIo): Promise<void> {
  const attempts = wholeNumberOption('--attempts', opts.attempts, DEFAULT_STRESS_ATTEMPTS, 1, 1_000_000);
  const concurrency = wholeNumberOption('--concurrency', opts.concurrency, DEFAULT_STRESS_CONCURRENCY, 1, 256);
  const report = await runMatrixStress({ attempts, concurrency, failFast: opts.failFast !== false });
  const files = await writeDiagnosticReport(opts.out, 'matrix-stress', `${newRunId()}-n${attempts}`, { json: report, markdown: matrixStressMarkdown(report) });
  if (opts.json) {
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const failed = report.checks.filter((c) => !c.passed);
    const lines = [
      failed.length === 0
        ? `matrix stress: ${report.checks.length} integrity checks passed (${attempts} attempts, concurrency ${concurrency})`
        : `matrix stress: ${failed.length} of ${report.checks.length} integrity checks FAILED`,
      ...failed.map((c) => `  ${c.run}: ${c.id}: ${c.detail}`),
      ...report.runs.map((x) => `  ${x.run}: ${x.executed}/${x.planned} executed (${x.skipped} skipped) in ${x.seconds} s, ${x.attemptsPerSecond} attempts/s`),
      `  peak RSS ${report.memory.sampledPeakRssMb} MB (sampled), max RSS ${report.memory.maxRssMb} MB`,
      `report: ${relative(io.cwd, files.markdown) || files.markdown}`,
    ];
    io.stdout.write(`${lines.join('\n')}\n`);
  }
  exitWith(report.passed ? EXIT.ok : EXIT.failed);
}
