import { join, relative } from 'node:path';
import { findRunDir } from '../../engine/index.js';
import { InputError } from '../../core/errors.js';
import { exportSweBench, writeSweBenchExport } from '../../features/grade/index.js';
import { withFlagNames } from '../option-flags.js';
import type { CliIo } from '../io.js';

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
    const r = e.report;
    io.stdout.write(
      `${e.agent}: ${r.resolved_instances} resolved, ${r.unresolved_instances} unresolved, ${r.error_instances} error, ${r.incomplete_ids.length} incomplete of ${r.total_instances}\n`,
    );
    if (e.truncated.length > 0)
      io.stderr.write(`warning ${e.agent}: the stored diff.patch of ${e.truncated.join(', ')} was cut at its size cap, so that prediction is incomplete\n`);
  }
  for (const file of written) io.stdout.write(`wrote ${shown(file, io)}\n`);
}

function shown(file: string, io: CliIo): string {
  const rel = relative(io.cwd, file);
  return rel.startsWith('..') ? file : rel;
}
