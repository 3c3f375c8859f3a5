import { lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, posix, resolve, sep } from 'node:path';
import { stringify } from 'yaml';
import { InputError } from '../../core/errors.js';

/**
 * What every importer shares: turning a path taken from imported (untrusted) data into one that
 * stays inside the output directory, creating that directory, and writing files and the task-set
 * YAML into it. Imported data is never trusted to name where it lands: a `..`, an absolute path or
 * a symlink planted in the output directory would let a task file write anywhere.
 */

/**
 * A relative path from imported data, checked and normalised to POSIX form: no absolute path, no
 * drive letter, no `..` component, no NUL, no backslash (a Windows separator would mean something
 * else on another machine), not empty. `what` names the source in the one-line error.
 */
export function safeRelativePath(raw: string, what: string): string {
  const problem = unsafePathProblem(raw);
  if (problem !== undefined) throw new InputError(`${what}: path ${JSON.stringify(raw)} ${problem} (fix: use a relative path inside the task)`);
  return posix.normalize(raw).replace(/\/+$/, '');
}

/** Why `raw` may not be used as a path inside the output, or undefined when it may. */
export function unsafePathProblem(raw: string): string | undefined {
  if (raw === '' || raw === '.') return 'is empty';
  if (raw.includes('\0')) return 'contains a NUL byte';
  if (raw.includes('\\')) return 'contains a backslash';
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) return 'is absolute';
  if (raw.split('/').some((part) => part === '..')) return 'escapes its directory (..)';
  return undefined;
}

/**
 * Make `dir` ready to receive an import: created when absent; an existing directory that is not
 * empty is refused unless `force` (then files are written over; entries the importer replaces as a
 * whole, like a task's held-out directory, are removed first by {@link replaceDirInside}).
 */
export async function prepareOutputDir(dir: string, force: boolean): Promise<string> {
  const root = resolve(dir);
  const stat = await lstat(root).catch(() => undefined);
  if (stat !== undefined) {
    if (!stat.isDirectory()) throw new InputError(`-o ${dir}: exists and is not a directory (fix: pick another output directory)`);
    const entries = await readdir(root);
    if (entries.length > 0 && !force) throw new InputError(`-o ${dir}: exists and is not empty (fix: pick a new directory, or add --force to write over it)`);
  }
  await mkdir(root, { recursive: true });
  return root;
}

/**
 * The absolute path of `rel` under `root`, after checking that no existing component between them
 * is a symlink (a planted `oracle -> /etc` would redirect every write below it).
 */
export async function pathInside(root: string, rel: string, what: string): Promise<string> {
  const safe = safeRelativePath(rel, what);
  const target = join(root, ...safe.split('/'));
  if (!(target === root || target.startsWith(root + sep))) throw new InputError(`${what}: path ${JSON.stringify(rel)} escapes the output directory`);
  let current = root;
  for (const part of safe.split('/')) {
    current = join(current, part);
    const stat = await lstat(current).catch(() => undefined);
    if (stat === undefined) break;
    if (stat.isSymbolicLink()) throw new InputError(`${what}: ${current} is a symlink (fix: remove it, or import into a new directory)`);
  }
  return target;
}

/** Write `content` to `rel` under `root`, creating directories; never through a symlink. */
export async function writeFileInside(root: string, rel: string, content: string | Uint8Array, what: string, mode?: number): Promise<string> {
  const target = await pathInside(root, rel, what);
  await mkdir(dirname(target), { recursive: true });
  // Check again after mkdir: the parents now exist and none of them may be a link.
  await pathInside(root, rel, what);
  await rm(target, { force: true });
  await writeFile(target, content, { flag: 'wx', ...(mode === undefined ? {} : { mode }) });
  return target;
}

/** Remove `rel` under `root` (a directory the importer is about to write afresh) and create it empty. */
export async function replaceDirInside(root: string, rel: string, what: string): Promise<string> {
  const target = await pathInside(root, rel, what);
  await rm(target, { recursive: true, force: true });
  await mkdir(target, { recursive: true });
  return target;
}

/** What an importer wrote, for the command's summary. */
export interface ImportResult {
  /** The task-set file written, absolute. */
  taskSetFile: string;
  /** Task ids, in the order written. */
  taskIds: string[];
  /** Things the user should know that did not stop the import (one line per task at most). */
  notes: string[];
  /** Inputs that were read but not imported, with why. */
  skipped: SkippedTask[];
  /** What the user still has to supply before the tasks run (an image to build or pull), one line each. */
  needs: string[];
  /** The sandbox the tasks run in when the default one cannot run them (a task with an image or Dockerfile needs docker). */
  sandbox?: 'docker';
}

/** An input the importer read and left out. */
export interface SkippedTask {
  /** The task directory or instance, as the user named it. */
  source: string;
  id: string;
  reason: string;
}

/**
 * Write the task set as `tasks.yaml` under `root`. `header` becomes comment lines on top (where the
 * tasks came from, how to validate them); `doc` is the task-set object in the file's snake_case form.
 */
export async function writeTaskSet(root: string, doc: Record<string, unknown>, header: readonly string[], fileName = 'tasks.yaml'): Promise<string> {
  const comments = header.map((line) => `# ${line}`.trimEnd()).join('\n');
  const body = stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false });
  return writeFileInside(root, fileName, `${comments}${comments ? '\n' : ''}${body}`, 'task set');
}
