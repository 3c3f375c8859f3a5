import { join } from 'node:path';
import { findRunDir } from '../../engine/index.js';
import { InputError } from '../../core/errors.js';
import { exportSweBench, writeSweBenchExport, type SweBenchReport } from '../../features/grade/index.js';
import { withFlagNames } from '../option-flags.js';
import { shownPath, type CliIo } from '../io.js';

export interface ExportCommandOptions {
  format: string;
  dir?: string;
  out: string;
}

/** `crucible export <run> --format swe-bench`: the run's patches as SWE-bench predictions, with its resolved-ids report. */
export async function exportCommand(run: string, opts: ExportCommandOptions, io: CliIo): Promise<void> {
  if (opts.format !== 'swe-bench') throw new InputError(`--format ${opts.format}: unknown export format (fix: --format swe-bench)`);
  const { runId, runDir } = await withFlagNames(() => findRunDir(opts.out, run));
  const exports = await exportSweBench(runDir, runId);
  const dir = opts.dir ?? join(runDir, 'swe-bench');
  const written = await writeSweBenchExport(dir, runId, exports);
  for (const e of exports) {
    io.stdout.write(`${e.agent}: ${exportCounts(e.report)}\n`);
    if (e.truncated.length > 0)
      io.stderr.write(`warning ${e.agent}: the stored diff.patch of ${e.truncated.join(', ')} was cut at its size cap, so that prediction is incomplete\n`);
  }
  for (const file of written) io.stdout.write(`wrote ${shownPath(io, file)}\n`);
}

/**
 * Every instance in exactly one count, so they add up to the total: SWE-bench's report leaves an
 * empty patch out of `completed`, and a task this agent had no prediction for out of `submitted`.
 */
export function exportCounts(r: SweBenchReport): string {
  const notSubmitted = r.total_instances - r.submitted_instances - r.incomplete_ids.length;
  const parts = [
    `${r.resolved_instances} resolved`,
    `${r.unresolved_instances} unresolved`,
    `${r.empty_patch_instances} empty patch`,
    `${r.error_instances} error`,
    `${r.incomplete_ids.length} incomplete`,
    ...(notSubmitted > 0 ? [`${notSubmitted} not submitted`] : []),
  ];
  return `${parts.join(', ')} of ${r.total_instances}`;
}
