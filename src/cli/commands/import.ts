import { importHarbor, importSweBench, type ImportResult } from '../../importers/index.js';

export interface SweBenchCommandOptions {
  out: string;
  ids?: string;
  repos?: string;
  force?: boolean;
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
  });
  printImportResult(result);
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
