import { join } from 'node:path';
import { findRunDir } from '../../engine/index.js';
import { InputError } from '../../core/errors.js';
import { readPlanFile } from '../../domain/run-dir/index.js';
import { exportSweBench, writeSubmission, writeSweBenchExport, type SweBenchExport, type SweBenchReport } from '../../features/grade/index.js';
import { atifOfAttempt, exportAtif } from '../../features/report/index.js';
import { withFlagNames } from '../option-flags.js';
import { shownPath, type CliIo } from '../io.js';

export interface ExportCommandOptions {
  format: string;
  dir?: string;
  dataset?: string;
  submission?: string;
  out: string;
}

const FORMATS = ['swe-bench', 'atif'] as const;

/**
 * `crucible export <run> --format swe-bench`: the run's patches as SWE-bench predictions, with its
 * report (and with `--submission DIR`, a leaderboard folder); `--format atif`: each attempt's
 * trajectory in Harbor's ATIF.
 */
export async function exportCommand(run: string, opts: ExportCommandOptions, io: CliIo): Promise<void> {
  if (!(FORMATS as readonly string[]).includes(opts.format))
    throw new InputError(`--format ${opts.format}: unknown export format (fix: --format ${FORMATS.join(' or --format ')})`);
  if (opts.format === 'atif' && (opts.dataset !== undefined || opts.submission !== undefined))
    throw new InputError(`--${opts.dataset !== undefined ? 'dataset' : 'submission'}: only for --format swe-bench (fix: leave it out with --format atif)`);
  const { runId, runDir } = await withFlagNames(() => findRunDir(opts.out, run));
  if (opts.format === 'atif') return exportAtifCommand(runDir, opts, io);
  const result = await exportSweBench(runDir, runId, opts.dataset === undefined ? {} : { dataset: opts.dataset });
  const dir = opts.dir ?? join(runDir, 'swe-bench');
  const written = await writeSweBenchExport(dir, runId, result);
  if (result.totalFrom.kind === 'run')
    io.stderr.write(`note: total_instances counts the run's tasks; pass --dataset FILE (the SWE-bench dataset) to count every instance of it\n`);
  for (const e of result.exports) {
    io.stdout.write(`${e.agent}: ${exportCounts(e.report)}\n`);
    const crucible = e.resolvedBy.crucible.length;
    if (crucible !== e.report.resolved_instances)
      io.stdout.write(
        `  resolved by SWE-bench's rule (the report's): ${e.report.resolved_instances}; by Crucible's, which excuses tests broken at the baseline: ${crucible}\n`,
      );
    for (const warning of exportWarnings(e)) io.stderr.write(`warning ${e.agent}: ${warning}\n`);
  }
  for (const file of written) io.stdout.write(`wrote ${shownPath(io, file)}\n`);
  if (opts.submission === undefined) return;
  const plan = await readPlanFile(runDir, runId);
  const folders = await writeSubmission(opts.submission, result, {
    runId,
    createdAt: plan.createdAt,
    trajectory: async (i) => {
      const t = await atifOfAttempt(runDir, i.attemptId);
      return t === undefined ? undefined : `${JSON.stringify(t, null, 2)}\n`;
    },
  });
  for (const f of folders) {
    io.stdout.write(`wrote submission ${shownPath(io, f.folder)}\n`);
    if (f.missingTrajs.length > 0)
      io.stderr.write(
        `warning ${f.agent}: no trajectory was kept for ${f.missingTrajs.length} instance(s); the leaderboard asks for one per instance in trajs/\n`,
      );
  }
  io.stderr.write('note: fill in metadata.yaml (info.report, site, authors) and confirm the checklist in README.md before submitting\n');
}

async function exportAtifCommand(runDir: string, opts: ExportCommandOptions, io: CliIo): Promise<void> {
  const dir = opts.dir ?? join(runDir, 'atif');
  const { written, skipped } = await exportAtif(runDir, dir);
  for (const file of written) io.stdout.write(`wrote ${shownPath(io, file)}\n`);
  if (skipped.length > 0)
    io.stderr.write(
      `note: ${skipped.length} attempt(s) without a trajectory to export (${skipped.map((s) => s.attemptId).join(', ')}): ${skipped[0]?.reason}\n`,
    );
}

/**
 * Every instance in exactly one count, so they add up to the total: SWE-bench's report leaves an
 * empty patch out of `completed`, and a task this agent had no prediction for out of `submitted`.
 */
export function exportCounts(r: SweBenchReport): string {
  const parts = [
    `${r.resolved_instances} resolved`,
    `${r.unresolved_instances} unresolved`,
    `${r.empty_patch_instances} empty patch`,
    `${r.error_instances} error`,
    `${r.incomplete_ids.length} not submitted`,
  ];
  return `${parts.join(', ')} of ${r.total_instances}`;
}

/** What keeps an export from being exactly what was submitted. */
export function exportWarnings(e: SweBenchExport): string[] {
  return [
    ...(e.truncated.length > 0 ? [`the stored diff.patch of ${e.truncated.join(', ')} was cut at its size cap, so that prediction is incomplete`] : []),
    ...(e.notUtf8.length > 0 ? [`the patch of ${e.notUtf8.join(', ')} is not UTF-8: a predictions file holds text, so its other bytes were replaced`] : []),
    ...(e.regenerated.length > 0
      ? [`the submitted patch of ${e.regenerated.join(', ')} was not kept (graded before Crucible kept it): Crucible's captured diff stands in`]
      : []),
  ];
}
