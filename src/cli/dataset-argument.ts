import { cp, lstat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import type { ImportResult } from '../features/importers/index.js';
import { shownPath, type CliIo } from './io.js';

/** `--registry`, on the commands that take a task set (or task directories) that may be a dataset name. */
export interface RegistryOption {
  registry?: string;
}

/** The environment variable that names the registry when --registry does not. */
export const REGISTRY_ENV = 'CRUCIBLE_REGISTRY';

/**
 * The registry a name is looked up in when neither --registry nor $CRUCIBLE_REGISTRY names one:
 * the git repository of Harbor's public registry.json (the file Harbor itself reads, from the
 * default branch).
 */
export const DEFAULT_REGISTRY = 'https://github.com/laude-institute/harbor.git';

export const registryHelp = `with a dataset NAME@VERSION: the registry in Harbor's format, a registry.json file or a git URL (URL#file for another file); default $${REGISTRY_ENV}, else ${DEFAULT_REGISTRY}`;

/**
 * The task set a command line names: `arg` itself when it is a file or directory (or cannot be a
 * dataset name), else the dataset `NAME[@VERSION]` resolved through the registry (--registry,
 * $CRUCIBLE_REGISTRY, or Harbor's public registry), fetched and imported into the state directory
 * once, and the imported tasks.yaml returned. docs/datasets.md.
 */
export async function datasetTaskSet(arg: string, opts: RegistryOption & { out: string }, io: CliIo): Promise<string> {
  const resolved = await resolveIfDataset(arg, opts, opts.out, io);
  return resolved?.taskSetFile ?? arg;
}

/**
 * `crucible import harbor NAME@VERSION -o DIR`: the dataset resolved (and cached) as a run would,
 * its imported task set copied into DIR. Undefined when the arguments are task directories.
 */
export async function importDataset(
  args: readonly string[],
  opts: RegistryOption & { out: string; force?: boolean; stateDir?: string },
  io: CliIo,
): Promise<ImportResult | undefined> {
  const stateDir = resolve(io.cwd, opts.stateDir ?? '.crucible');
  const first = args[0];
  if (args.length !== 1 || first === undefined) {
    for (const arg of args)
      if ((await datasetSpecOf(arg, io)) !== undefined)
        throw new InputError(`${arg}: a dataset name is imported on its own (fix: one crucible import harbor NAME@VERSION -o DIR per dataset)`);
    if (opts.registry !== undefined)
      throw new InputError('--registry: only with a dataset name (fix: crucible import harbor NAME@VERSION --registry FILE -o DIR)');
    return undefined;
  }
  const resolved = await resolveIfDataset(first, opts, stateDir, io);
  if (resolved === undefined) return undefined;
  const { prepareOutputDir } = await import('../features/importers/index.js');
  const out = await prepareOutputDir(opts.out, opts.force === true);
  const from = dirname(resolved.taskSetFile);
  await cp(from, out, { recursive: true, force: true, verbatimSymlinks: true, filter: (src) => src !== join(from, 'dataset.json') });
  return { ...resolved.result, taskSetFile: join(out, basename(resolved.taskSetFile)) };
}

async function resolveIfDataset(arg: string, opts: RegistryOption, stateDir: string, io: CliIo) {
  const spec = await datasetSpecOf(arg, io);
  if (spec === undefined) {
    if (opts.registry !== undefined)
      throw new InputError(`--registry: ${arg} is a path, not a dataset name (fix: drop --registry, or name a dataset as NAME@VERSION)`);
    return undefined;
  }
  const { resolveDataset } = await import('../features/importers/index.js');
  const registry = opts.registry ?? nonEmpty(io.env[REGISTRY_ENV]) ?? DEFAULT_REGISTRY;
  const resolved = await resolveDataset({ spec, registry, cwd: io.cwd, stateDir }).catch((error: unknown) => {
    // Without --registry the user may have meant a file: say why a name was looked up at all.
    if (opts.registry === undefined && error instanceof InputError)
      throw new InputError(`${arg}: no such file or directory, so looked up as a dataset: ${error.message}`);
    throw error;
  });
  const count = resolved.result.taskIds.length;
  const lines = [
    `dataset ${resolved.name}@${resolved.version} from ${registry}: ${count} task${count === 1 ? '' : 's'} ${resolved.cached ? 'already imported in' : 'fetched and imported into'} ${shownPath(io, dirname(resolved.taskSetFile))}`,
    ...resolved.unpinned.map((line) => `note: ${line}`),
  ];
  io.stderr.write(`${lines.join('\n')}\n`);
  return resolved;
}

/** The dataset `arg` names, or undefined when it is (or can only be) a path: it exists, has a `/`, or ends like a task-set file. */
async function datasetSpecOf(arg: string, io: CliIo) {
  if ((await lstat(resolve(io.cwd, arg)).catch(() => undefined)) !== undefined) return undefined;
  if (!arg.includes('@') && /\.(ya?ml|json)$/i.test(arg)) return undefined;
  const { parseDatasetSpec } = await import('../features/importers/index.js');
  return parseDatasetSpec(arg);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
