import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Redis } from 'ioredis';
import { loadRunInput, type RunInput } from '../suite/index.js';
import type { Task } from '../../core/types/index.js';
import { isSha256 } from './blobs.js';
import { inside, materializeTree, packTree, safePath, storeTree } from './tree.js';

/** What a job names to find its task: the shipped tree and the task-set file inside it. */
export interface InputsRef {
  /** SHA-256 of the tree manifest. */
  manifest: string;
  /** The task-set (or suite) file, relative to the tree's root, `/`-separated. */
  taskSet: string;
}

/** The most a task set and what it references may weigh when shipped through Redis. */
export const MAX_INPUT_BYTES = 512 * 1024 * 1024;

/**
 * Everything a worker needs to load `taskSetPath` with the normal loader: the directory of the
 * file (and of each task set of a suite), and every directory a task references outside them
 * (repos, held-out tests, reward files, Docker contexts). Paths are relative to their deepest
 * common directory, so the task set's relative paths resolve the same on the worker. `stateDir`
 * is left out when it lies inside.
 */
export async function shipInputs(
  redis: Redis,
  taskSetPath: string,
  stateDir: string,
  extraRoots: readonly string[] = [],
): Promise<{ ref: InputsRef; base: string }> {
  const input = loadRunInput(taskSetPath);
  const dirs = new Set<string>([
    dirname(resolve(input.file)),
    ...[...input.taskSetFiles.values()].map((f) => dirname(f)),
    ...input.tasks.map((t) => dirname(t.sourceFile)),
    ...extraRoots.filter((r) => existsSync(r)),
  ]);
  for (const task of input.tasks) for (const path of referencedPaths(task)) dirs.add(path);
  // A directory under another already ships with it.
  const roots = [...dirs].filter((d) => ![...dirs].some((o) => o !== d && inside(o, d))).sort();
  const base = commonDir(roots);
  const state = resolve(stateDir);
  const packed = await packTree(base, roots, { skip: (abs) => abs === state, maxBytes: MAX_INPUT_BYTES });
  const manifest = await storeTree(redis, packed);
  return { ref: { manifest, taskSet: relative(base, resolve(input.file)).split(sep).join('/') }, base };
}

/** The paths a loaded task points at on the coordinator's disk. */
function referencedPaths(task: Task): string[] {
  return [
    ...(task.repo.kind === 'local' ? [task.repo.path] : []),
    ...(task.heldOut ? [task.heldOut.path] : []),
    ...(task.tests.reward?.files ? [task.tests.reward.files] : []),
    ...(task.environment?.context ? [task.environment.context] : []),
    ...(task.environment?.dockerfile ? [dirname(task.environment.dockerfile)] : []),
  ];
}

function commonDir(paths: readonly string[]): string {
  const split = paths.map((p) => resolve(p).split(sep));
  const first = split[0] ?? [''];
  let n = first.length;
  for (const parts of split) {
    let i = 0;
    while (i < n && parts[i] === first[i]) i++;
    n = i;
  }
  return first.slice(0, n).join(sep) || sep;
}

/**
 * A worker's side: the tree fetched (every blob verified) into `<dir>/<manifest>/` once, then the
 * task set loaded there with the normal loader. Cached per manifest for the worker's life.
 */
export class InputCache {
  private readonly loaded = new Map<string, Promise<RunInput>>();

  constructor(
    private readonly redis: Redis,
    private readonly dir: string,
  ) {}

  load(ref: InputsRef): Promise<RunInput> {
    if (!isSha256(ref.manifest)) return Promise.reject(new Error('the job names no valid inputs hash'));
    const key = `${ref.manifest}\0${ref.taskSet}`;
    let pending = this.loaded.get(key);
    if (pending === undefined) {
      pending = this.fetch(ref);
      this.loaded.set(key, pending);
      // A failed fetch (Redis away, a bad blob) is tried again by the job's next try.
      pending.catch(() => this.loaded.delete(key));
    }
    return pending;
  }

  private async fetch(ref: InputsRef): Promise<RunInput> {
    const root = join(this.dir, ref.manifest);
    await mkdir(this.dir, { recursive: true });
    if (!existsSync(root)) await materializeTree(this.redis, ref.manifest, root);
    const file = safePath(root, ref.taskSet);
    const input = loadRunInput(file);
    // A task set with absolute paths would reach past the shipped tree into this machine's disk.
    for (const task of input.tasks) {
      for (const path of referencedPaths(task)) {
        if (!inside(root, path))
          throw new Error(`task ${task.id} references ${path}, outside the shipped task set (fix: use paths relative to the task-set file)`);
      }
    }
    return input;
  }
}
