/**
 * Harbor's dataset registry (its registry.json): a JSON list of datasets, each
 * `{ name, version, description, tasks: [{ name, git_url, git_commit_id, path }] }`, where a task is
 * the directory `path` of the git repository `git_url` at commit `git_commit_id`. This module reads
 * such a file and picks one dataset by `NAME@VERSION` (or `NAME`, for its latest version); fetching
 * is dataset-fetch.ts's.
 *
 * The registry is untrusted input: only the chosen dataset's entries are checked field by field
 * (one odd entry elsewhere in a public registry must not stop every other dataset), and each
 * problem is one line naming the registry, the entry's field and the fix.
 */
import { InputError } from '../../core/errors.js';
import { nearestIds } from '../../core/format/index.js';
import { unsafePathProblem } from './output.js';

/** `NAME@VERSION` or `NAME` as the command line gives it. */
export interface DatasetSpec {
  name: string;
  version?: string;
}

/** One task of the chosen dataset, checked. */
export interface RegistryTask {
  name: string;
  /** A URL git fetches from (https, ssh, git, file) or an absolute local path. */
  gitUrl: string;
  /** The full commit id, lowercase; undefined when the registry pins none (Harbor then takes the remote's HEAD). */
  commit?: string;
  /** The task's directory in the repository, POSIX, relative; `.` for the repository's root. */
  path: string;
  /** Where the entry is in the registry, for messages: `registry.json: [3].tasks[0]`. */
  where: string;
}

export interface RegistryDataset {
  name: string;
  version: string;
  description: string;
  tasks: RegistryTask[];
}

/** Where the registry was read from, as messages name it, and whether it may name local repositories. */
export interface RegistrySource {
  /** The file or URL, as the user gave it. */
  shown: string;
  /** A registry fetched from elsewhere may not point git at this machine's files. */
  remote: boolean;
  /** The registry file's directory: a relative git_url of a local registry is read from there. */
  baseDir?: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

/**
 * `NAME@VERSION` or `NAME` when `text` reads as one (letters, digits, `.`, `_`, `+`, `-`; no path
 * separator), else undefined: the argument is then a file.
 */
export function parseDatasetSpec(text: string): DatasetSpec | undefined {
  const at = text.indexOf('@');
  const name = at === -1 ? text : text.slice(0, at);
  const version = at === -1 ? undefined : text.slice(at + 1);
  if (!NAME.test(name) || (version !== undefined && !NAME.test(version))) return undefined;
  return version === undefined ? { name } : { name, version };
}

/** The datasets of a registry file, each as far as choosing one needs (name and version); tasks are checked once chosen. */
interface ListedDataset {
  index: number;
  name: string;
  version: string;
  raw: Record<string, unknown>;
}

/** Parse registry text and choose the dataset `spec` names; every problem is an InputError of one line. */
export function chooseDataset(text: string, spec: DatasetSpec, source: RegistrySource): RegistryDataset {
  const listed = listDatasets(text, source.shown);
  const named = listed.filter((d) => d.name === spec.name);
  if (named.length === 0) {
    const names = [...new Set(listed.map((d) => d.name))];
    const near = nearestIds(spec.name, names, 3);
    const hint =
      near.length > 0
        ? `did you mean ${near.join(', ')}?`
        : `the registry has ${names.length === 0 ? 'no datasets' : names.slice(0, 8).join(', ')}${names.length > 8 ? ', …' : ''}`;
    throw new InputError(`${source.shown}: no dataset named ${spec.name} (fix: ${hint})`);
  }
  const version = spec.version ?? latestVersion(named.map((d) => d.version));
  const chosen = named.filter((d) => d.version === version);
  const versions = named.map((d) => d.version).join(', ');
  if (chosen.length === 0) throw new InputError(`${source.shown}: dataset ${spec.name} has no version ${version} (fix: use one of ${versions})`);
  if (chosen.length > 1)
    throw new InputError(
      `${source.shown}: [${chosen.map((d) => d.index).join('], [')}] are all ${spec.name}@${version} (fix: keep one entry per name and version)`,
    );
  return checkDataset(chosen[0] as ListedDataset, source);
}

function listDatasets(text: string, shown: string): ListedDataset[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${shown}: not valid JSON (${error instanceof Error ? error.message : String(error)}) (fix: a registry is a JSON list of datasets)`);
  }
  if (!Array.isArray(doc))
    throw new InputError(`${shown}: expected a JSON list of datasets, got ${kindOf(doc)} (fix: write [ { "name": …, "version": …, "tasks": […] } ])`);
  return doc.map((entry: unknown, index) => {
    const where = `${shown}: [${index}]`;
    if (!isRecord(entry)) throw new InputError(`${where}: expected a dataset object, got ${kindOf(entry)} (fix: { "name", "version", "tasks" })`);
    const name = entry.name;
    const version = entry.version;
    if (typeof name !== 'string' || name === '') throw new InputError(`${where}.name: missing or not text (fix: give the dataset a name)`);
    if (typeof version !== 'string' || version === '') throw new InputError(`${where}.version: missing or not text (fix: give ${name} a version, e.g. "1.0")`);
    return { index, name, version, raw: entry };
  });
}

/**
 * The version a bare NAME means, as Harbor resolves it: `head` when there is one, else the highest
 * numeric version (1.10 above 1.9; a pre-release suffix ranks below the release), else the last
 * in text order.
 */
export function latestVersion(versions: readonly string[]): string {
  if (versions.includes('head')) return 'head';
  const numeric = versions.map((v) => ({ v, key: /^v?(\d+(?:\.\d+)*)(.*)$/.exec(v) })).filter((x) => x.key !== null);
  if (numeric.length > 0) {
    const parts = (m: RegExpExecArray): number[] => (m[1] as string).split('.').map(Number);
    numeric.sort((a, b) => {
      const pa = parts(a.key as RegExpExecArray);
      const pb = parts(b.key as RegExpExecArray);
      for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
        const d = (pa[i] ?? 0) - (pb[i] ?? 0);
        if (d !== 0) return d;
      }
      // 1.0rc1 before 1.0; between equals, the shorter spelling (1.0 before 1.0.0) ranks higher.
      const sa = (a.key as RegExpExecArray)[2] as string;
      const sb = (b.key as RegExpExecArray)[2] as string;
      if (sa !== sb) return sa === '' ? 1 : sb === '' ? -1 : sa < sb ? -1 : 1;
      return b.v.length - a.v.length;
    });
    return (numeric[numeric.length - 1] as { v: string }).v;
  }
  return [...versions].sort().pop() as string;
}

function checkDataset(listed: ListedDataset, source: RegistrySource): RegistryDataset {
  const where = `${source.shown}: [${listed.index}]`;
  const { raw } = listed;
  if (!Array.isArray(raw.tasks)) throw new InputError(`${where}.tasks: missing or not a list (fix: list the dataset's tasks)`);
  if (raw.tasks.length === 0) throw new InputError(`${where}.tasks: empty (fix: a dataset lists at least one task)`);
  const tasks = raw.tasks.map((task: unknown, i) => checkTask(task, `${where}.tasks[${i}]`, source));
  const names = new Map<string, string>();
  for (const task of tasks) {
    const earlier = names.get(task.name);
    if (earlier !== undefined) throw new InputError(`${task.where}.name: ${task.name} is also ${earlier} (fix: give each task of a dataset its own name)`);
    names.set(task.name, task.where);
  }
  return { name: listed.name, version: listed.version, description: typeof raw.description === 'string' ? raw.description : '', tasks };
}

function checkTask(task: unknown, where: string, source: RegistrySource): RegistryTask {
  if (!isRecord(task)) throw new InputError(`${where}: expected a task object, got ${kindOf(task)} (fix: { "name", "git_url", "git_commit_id", "path" })`);
  const name = task.name;
  if (typeof name !== 'string' || !/[A-Za-z0-9]/.test(name)) throw new InputError(`${where}.name: missing or not a name (fix: name the task)`);
  const path = task.path;
  if (typeof path !== 'string') throw new InputError(`${where}.path: missing or not text (fix: the task's directory in the repository, e.g. "tasks/${name}")`);
  const trimmed = path.replace(/\/+$/, '');
  const problem = trimmed === '' || trimmed === '.' ? undefined : unsafePathProblem(trimmed);
  if (problem !== undefined)
    throw new InputError(`${where}.path: ${JSON.stringify(path)} ${problem} (fix: a relative path inside the repository, e.g. "tasks/${name}")`);
  return {
    name,
    gitUrl: checkGitUrl(task.git_url, `${where}.git_url`, source),
    ...commitOf(task.git_commit_id, `${where}.git_commit_id`),
    path:
      trimmed === ''
        ? '.'
        : trimmed
            .split('/')
            .filter((p) => p !== '.' && p !== '')
            .join('/') || '.',
    where,
  };
}

function commitOf(value: unknown, where: string): { commit?: string } {
  // Harbor reads a missing commit, null or "HEAD" as the remote's HEAD: resolved when fetched, and said so.
  if (value === undefined || value === null || (typeof value === 'string' && value.toUpperCase() === 'HEAD')) return {};
  if (typeof value !== 'string' || !/^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/.test(value))
    throw new InputError(
      `${where}: ${JSON.stringify(value)} is not a full commit id (fix: pin the task with the 40-hex id \`git rev-parse <ref>\` prints, or null for the remote's HEAD)`,
    );
  return { commit: value.toLowerCase() };
}

/** Transports git may use for a dataset (protocol.allow is restricted to the same in dataset-fetch.ts). */
const URL_SCHEMES = /^(https|ssh|git|file):\/\/[^\s]+$/;

function checkGitUrl(value: unknown, where: string, source: RegistrySource): string {
  if (typeof value !== 'string' || value === '')
    throw new InputError(
      `${where}: missing (fix: give the repository the task is in, with git_commit_id; a task directory on this machine imports with crucible import harbor DIR)`,
    );
  if (/[\0\n\r]/.test(value) || value.startsWith('-')) throw new InputError(`${where}: ${JSON.stringify(value)} is not a git URL (fix: an https:// URL)`);
  const scp = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+$/.test(value);
  if (URL_SCHEMES.test(value) || scp) {
    if (source.remote && value.startsWith('file:'))
      throw new InputError(`${where}: ${value}: a registry read from ${source.shown} may not name a repository on this machine (fix: an https:// URL)`);
    return value;
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value))
    throw new InputError(`${where}: ${value}: only https://, ssh://, git:// and file:// repositories are fetched (fix: an https:// URL)`);
  if (source.remote || source.baseDir === undefined)
    throw new InputError(`${where}: ${value}: a registry read from ${source.shown} may not name a repository on this machine (fix: an https:// URL)`);
  // A path: absolute, or relative to the registry file (so a registry can ship beside its repository).
  return value.startsWith('/') ? value : `${source.baseDir.replace(/\/+$/, '')}/${value}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  return Array.isArray(value) ? 'a list' : value === null ? 'null' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
