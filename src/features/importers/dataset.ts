/**
 * A dataset by name (`crucible run terminal-bench@2.0`): looked up in a registry in Harbor's format
 * (dataset-registry.ts), its tasks fetched at their pinned commits (dataset-fetch.ts), imported once
 * by the Harbor importer, and kept under the state directory keyed by name, version and the exact
 * repositories, commits and paths, so a later run with the same registry entry fetches nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError } from '../../core/errors.js';
import { version as crucibleVersion } from '../../core/version.js';
import { git } from '../../infra/workspace/index.js';
import { DATASET_GIT_ARGS, fetchTaskDirs, gitTail, pinTasks, type PinnedTask } from './dataset-fetch.js';
import { chooseDataset, type DatasetSpec, type RegistrySource } from './dataset-registry.js';
import { importHarbor } from './harbor.js';
import type { ImportResult } from './output.js';

/** The file of a git registry read when its URL names none (`URL#path/to/file.json` names one). */
const REGISTRY_FILE = 'registry.json';

/** Above this, a registry file is not a registry. */
const MAX_REGISTRY_BYTES = 64 * 1024 * 1024;

export interface DatasetOptions {
  spec: DatasetSpec;
  /** A registry file, or a git URL (`URL#file` for a file other than registry.json at its root). */
  registry: string;
  /** The directory a relative registry path means. */
  cwd: string;
  /** Crucible's state directory: the dataset is kept in <stateDir>/cache/datasets/. */
  stateDir: string;
}

export interface ResolvedDataset {
  name: string;
  version: string;
  /** The imported task set, in the cache. */
  taskSetFile: string;
  /** True when it was imported before and nothing was fetched now. */
  cached: boolean;
  /** What the import said (notes, what still needs supplying), kept with the cached copy. */
  result: ImportResult;
  /** The registry entries that named no commit, each with the one taken. */
  unpinned: string[];
}

/** What the cache keeps beside the imported task set. */
interface CacheRecord {
  name: string;
  version: string;
  registry: string;
  tasks: Array<{ name: string; git_url: string; git_commit_id: string; path: string }>;
  result: ImportResult;
}

const RECORD_FILE = 'dataset.json';

export async function resolveDataset(options: DatasetOptions): Promise<ResolvedDataset> {
  const cacheRoot = join(options.stateDir, 'cache', 'datasets');
  await mkdir(cacheRoot, { recursive: true });
  const work = join(cacheRoot, `.work-${process.pid}-${randomBytes(4).toString('hex')}`);
  await mkdir(work);
  try {
    const { text, source } = await readRegistry(options.registry, options.cwd, join(work, 'registry'));
    const dataset = chooseDataset(text, options.spec, source);
    const dirNames = taskDirNames(dataset.tasks);
    // Only an unpinned task asks its remote anything before the cache is looked at.
    const pinned = await pinTasks(dataset.tasks, join(work, 'heads'), 'unpinned');
    const unpinned = pinned.filter((t) => t.unpinned).map((t) => `${t.where}: no git_commit_id; took ${t.gitUrl}'s HEAD, ${t.commit}`);
    const dir = join(cacheRoot, `${safeName(dataset.name)}@${safeName(dataset.version)}-${cacheKey(dataset.name, dataset.version, pinned)}`);
    const cached = await readRecord(dir);
    if (cached !== undefined) {
      // The entry's own path, not the one recorded: the state directory may have moved since.
      const result = { ...cached.result, taskSetFile: join(dir, basename(cached.result.taskSetFile)) };
      return { name: dataset.name, version: dataset.version, taskSetFile: result.taskSetFile, cached: true, result, unpinned };
    }
    // Every repository is checked to be one before the first fetch.
    await pinTasks(dataset.tasks, join(work, 'probe'), 'all');
    const dirs = await fetchTaskDirs(pinned, dirNames, work);
    const staging = join(work, 'import');
    const imported = await importHarbor({ dirs, out: staging });
    const result = relocate(imported, staging, dir, join(work, 'tasks'));
    const record: CacheRecord = {
      name: dataset.name,
      version: dataset.version,
      registry: source.shown,
      tasks: pinned.map((t) => ({ name: t.name, git_url: t.gitUrl, git_commit_id: t.commit, path: t.path })),
      result,
    };
    await writeFile(join(staging, RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
    try {
      await rename(staging, dir);
    } catch (error) {
      // Another process imported the same dataset first: its copy is the same one.
      if ((await readRecord(dir)) === undefined) throw error;
    }
    return { name: dataset.name, version: dataset.version, taskSetFile: result.taskSetFile, cached: false, result, unpinned };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The registry's text, from a local file or a shallow fetch of a git repository's default branch. */
async function readRegistry(registry: string, cwd: string, workDir: string): Promise<{ text: string; source: RegistrySource }> {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(registry) || /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:/.test(registry)) return readGitRegistry(registry, workDir);
  const file = resolve(cwd, registry);
  const stat = await lstat(file).catch(() => undefined);
  if (stat === undefined)
    throw new InputError(`--registry ${registry}: no such file (fix: a registry.json in Harbor's format, or a git URL of a repository holding one)`);
  if (!stat.isFile()) throw new InputError(`--registry ${registry}: not a regular file (fix: the registry.json file itself)`);
  if (stat.size > MAX_REGISTRY_BYTES)
    throw new InputError(`--registry ${registry}: larger than ${MAX_REGISTRY_BYTES} bytes (fix: a registry.json in Harbor's format)`);
  return { text: await readFile(file, 'utf8'), source: { shown: registry, remote: false, baseDir: dirname(file) } };
}

async function readGitRegistry(registry: string, workDir: string): Promise<{ text: string; source: RegistrySource }> {
  const hash = registry.indexOf('#');
  const url = hash === -1 ? registry : registry.slice(0, hash);
  const file = hash === -1 ? REGISTRY_FILE : registry.slice(hash + 1);
  const shown = `${url}#${file}`;
  if (!/^(https|ssh|git|file):\/\//.test(url) && !/^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:/.test(url))
    throw new InputError(
      `--registry ${registry}: only https://, ssh://, git:// and file:// repositories are fetched (fix: an https:// git URL, or a local file)`,
    );
  if (file === '' || file.startsWith('/') || file.split('/').includes('..') || file.startsWith(':'))
    throw new InputError(`--registry ${registry}: ${file} is not a file inside the repository (fix: URL#path/to/registry.json, or no #)`);
  await git({}, ['init', '--quiet', '--bare', workDir]);
  await git({ gitDir: workDir }, ['config', 'remote.origin.url', url]);
  try {
    await git({ gitDir: workDir }, [...DATASET_GIT_ARGS, 'fetch', '--quiet', '--no-tags', '--depth=1', 'origin', 'HEAD']);
  } catch (error) {
    throw new InputError(`--registry ${registry}: cannot fetch ${url} (${gitTail(error)}) (fix: a git URL git can reach, or a local registry file)`);
  }
  const text = await git({ gitDir: workDir }, ['show', `FETCH_HEAD:${file}`], { maxBuffer: MAX_REGISTRY_BYTES }).catch(() => {
    throw new InputError(`--registry ${registry}: ${url} has no ${file} on its default branch (fix: URL#path/to/registry.json)`);
  });
  return { text, source: { shown, remote: !url.startsWith('file://') } };
}

/** A directory name per task, from its registry name (the task's id once imported); two that clash are refused. */
function taskDirNames(tasks: ReadonlyArray<{ name: string; where: string }>): string[] {
  const seen = new Map<string, string>();
  return tasks.map((task) => {
    const name = safeName(task.name);
    const earlier = seen.get(name);
    if (earlier !== undefined)
      throw new InputError(`${task.where}.name: ${task.name} becomes the task id ${name}, as ${earlier} does (fix: names that differ in letters or digits)`);
    seen.set(name, task.where);
    return name;
  });
}

function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'dataset';
}

/** The entry's identity: the dataset's exact tasks, and the Crucible that imported them (another version may map them differently). */
function cacheKey(name: string, version: string, tasks: readonly PinnedTask[]): string {
  const identity = JSON.stringify([crucibleVersion(), name, version, tasks.map((t) => [t.name, t.gitUrl, t.commit, t.path])]);
  return createHash('sha256').update(identity).digest('hex').slice(0, 16);
}

async function readRecord(dir: string): Promise<CacheRecord | undefined> {
  const text = await readFile(join(dir, RECORD_FILE), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as CacheRecord;
    return typeof record.result?.taskSetFile === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}

/** The import's result as it reads once the staging directory is the cache entry: its paths there, no scratch paths in its notes. */
function relocate(result: ImportResult, staging: string, dir: string, fetched: string): ImportResult {
  const tidy = (line: string): string => line.split(`${fetched}/`).join('').split(staging).join(dir);
  return {
    ...result,
    taskSetFile: result.taskSetFile.split(staging).join(dir),
    notes: result.notes.map(tidy),
    needs: result.needs.map(tidy),
    skipped: result.skipped.map((s) => ({ ...s, source: tidy(s.source), reason: tidy(s.reason) })),
  };
}
