/**
 * The prepared-tree cache: a task's repo with what its setup produced, built once per content hash
 * and copied into every attempt. `<state>/cache/prepared/<hash>/` holds `tree/` and
 * `outputs.json` (setup's top-most new paths); the directory appears whole (built beside it, then
 * renamed) or not at all. A lock file per hash makes concurrent builders, in this process or
 * another, build once: the others wait and take the result. A failed build leaves nothing behind,
 * so the next attempt runs setup again and reports its own failure.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { copyTree } from '../infra/workspace/index.js';

/** Bumped whenever what a prepared tree holds, or how setup runs, changes: old entries are then never used. */
export const PREPARE_FORMAT = 1;

export interface PreparedKeyInput {
  /** Digest of the repo source's content (listTree). */
  source: string;
  setup: readonly string[];
  sandbox: string;
  /** docker: the image setup runs in. */
  imageId?: string;
}

export function preparedKey(input: PreparedKeyInput): string {
  const parts = { format: PREPARE_FORMAT, source: input.source, setup: input.setup, sandbox: input.sandbox, imageId: input.imageId ?? null };
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

export interface PreparedEntry {
  tree: string;
  outputs: string[];
  /** Whether the tree was there already (or another builder made it meanwhile). */
  reused: boolean;
  /** False when the build found the tree bound to its own path: nothing was stored, setup runs in every attempt. */
  stored: boolean;
}

/** What a build made: setup's outputs, and whether they may be copied elsewhere (no absolute path of the build in them). */
export interface Built {
  outputs: string[];
  relocatable: boolean;
}

/** The marker a build leaves for a key whose tree cannot move: later attempts run setup themselves without waiting. */
export function pathBound(root: string, key: string): boolean {
  return existsSync(join(root, `${key}.path-bound`));
}

/**
 * The cache entry for `key`: reused when present, else built by `build`, which must leave the
 * prepared tree at the directory it is given (absent until then) and return setup's outputs.
 */
export async function ensurePrepared(root: string, key: string, build: (tree: string) => Promise<Built>, signal?: AbortSignal): Promise<PreparedEntry> {
  const dir = join(root, key);
  const existing = await readEntry(dir);
  if (existing) return { ...existing, reused: true, stored: true };
  await mkdir(root, { recursive: true });
  const release = await acquireLock(join(root, `${key}.lock`), signal);
  try {
    const built = await readEntry(dir);
    if (built) return { ...built, reused: true, stored: true };
    await removeDeadStaging(root, key);
    const staging = join(root, `.tmp-${key}-${process.pid}-${Math.random().toString(36).slice(2)}`);
    try {
      await mkdir(staging);
      const { outputs, relocatable } = await build(join(staging, 'tree'));
      if (!relocatable) {
        await writeFile(join(root, `${key}.path-bound`), '');
        return { tree: join(staging, 'tree'), outputs, reused: false, stored: false };
      }
      await writeFile(join(staging, 'outputs.json'), `${JSON.stringify(outputs)}\n`);
      await rename(staging, dir);
      return { tree: join(dir, 'tree'), outputs, reused: false, stored: true };
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  } finally {
    await release();
  }
}

async function readEntry(dir: string): Promise<Omit<PreparedEntry, 'reused' | 'stored'> | undefined> {
  const text = await readFile(join(dir, 'outputs.json'), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const outputs = JSON.parse(text) as unknown;
  if (!Array.isArray(outputs) || !outputs.every((p) => typeof p === 'string')) return undefined;
  return { tree: join(dir, 'tree'), outputs };
}

const POLL_MS = 100;

/** Takes the lock file (O_EXCL, holding our pid); waits while a live process holds it, takes over a dead one's. */
export async function acquireLock(file: string, signal?: AbortSignal): Promise<() => Promise<void>> {
  for (;;) {
    signal?.throwIfAborted();
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
    // An empty file is a holder between open and write: wait for it like any other.
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) await rm(file, { force: true });
    else await sleep(POLL_MS, undefined, signal ? { signal } : {});
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Staging directories of builders that died mid-build (killed runs) go when the next builder holds
 * the lock. One with our own pid cannot be in use either: we hold the only lock for this key.
 */
async function removeDeadStaging(root: string, key: string): Promise<void> {
  for (const name of await readdir(root)) {
    const pid = Number(new RegExp(`^\\.tmp-${key}-(\\d+)-`).exec(name)?.[1] ?? NaN);
    if (Number.isInteger(pid) && (pid === process.pid || !alive(pid))) await rm(join(root, name), { recursive: true, force: true });
  }
}

/**
 * Whether any of setup's outputs under `dir` holds `dir`'s absolute path (a virtualenv's script
 * shebangs, an editable install's `.pth`): such a tree works only where it was built, so it is
 * not shared. Literal bytes, binary files included.
 */
export async function mentionsPath(dir: string, outputs: readonly string[]): Promise<boolean> {
  if (outputs.length === 0) return false;
  try {
    await promisify(execFile)('grep', ['-rqsF', '--', dir, ...outputs], { cwd: dir, maxBuffer: 1024 * 1024 });
    return true;
  } catch (error) {
    // grep exits 1 when nothing matched, 2 when some file could not be read (and nothing matched).
    const code = (error as { code?: unknown }).code;
    if (code === 1 || code === 2) return false;
    throw error;
  }
}

/** The attempt's own copy of a prepared tree: a full copy (reflinked where the filesystem can), never hard links. */
export function copyPrepared(entry: PreparedEntry, dest: string): Promise<void> {
  return copyTree(entry.tree, dest);
}
