import { InputError } from '../../core/errors.js';
import { importHarbor, importSweBench, type ImportResult, type SweBenchEnvironment } from '../../features/importers/index.js';
import { shellWord } from '../../core/format/index.js';
import { importDataset } from '../dataset-argument.js';
import { shownPath, type CliIo } from '../io.js';

export interface SweBenchCommandOptions {
  out: string;
  ids?: string;
  repos?: string;
  force?: boolean;
  environment?: 'image' | 'none';
  dockerfile?: string;
  strict?: boolean;
}

/** `crucible import swe-bench <instances> -o DIR`. */
export async function importSweBenchCommand(file: string, opts: SweBenchCommandOptions, io: CliIo): Promise<void> {
  const ids = opts.ids
    ?.split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  const result = await importSweBench({
    file,
    out: opts.out,
    force: opts.force === true,
    strict: opts.strict === true,
    ...(ids === undefined ? {} : { ids }),
    ...(opts.repos === undefined ? {} : { repos: opts.repos }),
    environment: sweBenchEnvironment(opts),
  });
  printImportResult(result, io);
}

function sweBenchEnvironment(opts: SweBenchCommandOptions): SweBenchEnvironment {
  if (opts.dockerfile !== undefined) {
    if (opts.environment === 'none') throw new InputError('--dockerfile and --environment none contradict each other (fix: drop one)');
    return { kind: 'dockerfile', file: opts.dockerfile };
  }
  return { kind: opts.environment ?? 'image' };
}

/** `crucible import harbor <task-dir...> -o DIR` (Harbor, or Terminal-Bench's task.yaml layout). */
export async function importHarborCommand(
  dirs: string[],
  opts: { out: string; force?: boolean; registry?: string; stateDir?: string },
  io: CliIo,
): Promise<void> {
  const dataset = await importDataset(dirs, opts, io);
  printImportResult(dataset ?? (await importHarbor({ dirs, out: opts.out, force: opts.force === true })), io);
}

/**
 * The summary every importer prints: what was imported and skipped (with why), what of each task
 * Crucible does not use (one note per task), what the user still has to supply, how to check it.
 */
export function printImportResult(result: ImportResult, io: CliIo): void {
  const lines = [`wrote ${result.taskIds.length} task${result.taskIds.length === 1 ? '' : 's'} to ${shownPath(io, result.taskSetFile)}`];
  if (result.skipped.length > 0) lines.push(`skipped ${result.skipped.length}:`);
  for (const s of result.skipped) lines.push(`  ${s.id} (${s.source}): ${s.reason}`);
  for (const note of result.notes) lines.push(`note: ${note}`);
  if (result.needs.length > 0) lines.push('you still need:');
  for (const need of result.needs) lines.push(`  ${need}`);
  lines.push(`next: crucible validate ${shellWord(shownPath(io, result.taskSetFile))}${result.sandbox === undefined ? '' : ` --sandbox ${result.sandbox}`}`);
  io.stdout.write(`${lines.join('\n')}\n`);
}
