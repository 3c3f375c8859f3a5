import { InputError } from '../../errors.js';
import { importHarbor, importSweBench, type ImportResult, type SweBenchEnvironment } from '../../importers/index.js';

export interface SweBenchCommandOptions {
  out: string;
  ids?: string;
  repos?: string;
  force?: boolean;
  environment?: 'image' | 'none';
  dockerfile?: string;
}

/** `crucible import swe-bench <instances> -o DIR`. */
export async function importSweBenchCommand(file: string, opts: SweBenchCommandOptions): Promise<void> {
  const ids = opts.ids
    ?.split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  const result = await importSweBench({
    file,
    out: opts.out,
    force: opts.force === true,
    ...(ids === undefined ? {} : { ids }),
    ...(opts.repos === undefined ? {} : { repos: opts.repos }),
    environment: sweBenchEnvironment(opts),
  });
  printImportResult(result);
}

function sweBenchEnvironment(opts: SweBenchCommandOptions): SweBenchEnvironment {
  if (opts.dockerfile !== undefined) {
    if (opts.environment === 'none') throw new InputError('--dockerfile and --environment none contradict each other (fix: drop one)');
    return { kind: 'dockerfile', file: opts.dockerfile };
  }
  return { kind: opts.environment ?? 'image' };
}

/** `crucible import harbor <task-dir...> -o DIR` (Harbor, or Terminal-Bench's task.yaml layout). */
export async function importHarborCommand(dirs: string[], opts: { out: string; force?: boolean }): Promise<void> {
  printImportResult(await importHarbor({ dirs, out: opts.out, force: opts.force === true }));
}

/** The summary every importer prints: what was written, anything to know, how to check it. */
export function printImportResult(result: ImportResult): void {
  const lines = [`wrote ${result.taskIds.length} task${result.taskIds.length === 1 ? '' : 's'} to ${result.taskSetFile}`];
  for (const note of result.notes) lines.push(`note: ${note}`);
  lines.push(`next: npx crucible validate ${result.taskSetFile}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
