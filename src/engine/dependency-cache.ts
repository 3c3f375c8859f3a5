/**
 * The per-lockfile dependency cache: `node_modules` as a task's install made it, kept by what
 * decides its content, so another task with the same lockfile (the same project at another
 * commit: `crucible mine`'s candidates, a task set's tasks on one repo) gets it by a copy instead
 * of running the install. `<state>/cache/deps/<key>/node_modules`, beside `outputs.json`; the
 * entry appears whole (built beside it, then renamed) or not at all.
 *
 * Used only where it cannot change what setup would have made: setup is one install command of
 * npm, pnpm or yarn with flags only (no package named), the repository has a lockfile and no
 * install script of its own, and the install made `node_modules` and nothing else, left the
 * lockfile as it was, and wrote no absolute path of its build into it. The key is the lockfile's
 * bytes, package.json's dependency fields, `.npmrc`, the command, Node's version, the sandbox and
 * its image.
 *
 * Nothing sandboxed ever sees an entry: it is written by the harness from the workspace right
 * after setup, before an agent or a test runs there, and every user gets a full copy (cp -a, never
 * links), under the state directory that every sandbox hides.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, readlink, rename, rm, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { copyTree } from '../infra/workspace/index.js';
import { acquireLock, mentionsPath } from './prepared-cache.js';

/** Bumped whenever what an entry holds or how it is chosen changes. */
export const DEPENDENCY_CACHE_FORMAT = 1;

const LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock'];
/** An install of what the lockfile says: the command and flags, no package named, nothing chained. */
const INSTALL = /^(?:npm (?:ci|install|i)|pnpm (?:install|i)|yarn(?: install)?)(?: --?[A-Za-z][\w-]*(?:=[\w.:/@-]+)?)*$/;
/** The root package's own scripts an install runs: they may write anything, so such a project is not cached. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare'];
const DEPENDENCY_FIELDS = [
  'dependencies',
  'devDependencies',
  'optionalDependencies',
  'peerDependencies',
  'bundleDependencies',
  'bundledDependencies',
  'overrides',
  'resolutions',
  'pnpm',
  'workspaces',
];

export interface DependencyCacheInput {
  /** `<state>/cache/deps`. */
  root: string;
  workspace: string;
  setup: readonly string[];
  sandbox: string;
  imageId?: string;
}

/** The entry's key when the workspace's setup may use the cache; undefined when it may not. */
export async function dependencyKey(input: Omit<DependencyCacheInput, 'root'>): Promise<string | undefined> {
  const command = input.setup.length === 1 ? input.setup[0]?.trim() : undefined;
  if (command === undefined || !INSTALL.test(command)) return undefined;
  const lockfile = LOCKFILES.find((name) => existsSync(join(input.workspace, name)));
  if (lockfile === undefined) return undefined;
  let pkg: Record<string, unknown>;
  try {
    pkg = JSON.parse(await readFile(join(input.workspace, 'package.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof pkg !== 'object' || pkg === null || Array.isArray(pkg)) return undefined;
  const scripts = (pkg['scripts'] ?? {}) as Record<string, unknown>;
  if (INSTALL_SCRIPTS.some((name) => scripts[name] !== undefined)) return undefined;
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify({ format: DEPENDENCY_CACHE_FORMAT, command, lockfile, node: process.version, sandbox: input.sandbox, imageId: input.imageId ?? null }),
  );
  hash.update(JSON.stringify(DEPENDENCY_FIELDS.map((field) => pkg[field] ?? null)));
  hash.update(await readFile(join(input.workspace, lockfile)));
  hash.update(await readFile(join(input.workspace, '.npmrc')).catch(() => Buffer.alloc(0)));
  return hash.digest('hex').slice(0, 32);
}

/**
 * Setup's outputs, by `build` (which runs setup in the workspace) or from the cache: a stored
 * entry is copied into the workspace as `node_modules` and setup does not run; otherwise setup
 * runs and what it made is stored when it may be reused (see above).
 */
export async function withDependencyCache(input: DependencyCacheInput, build: () => Promise<string[]>, signal?: AbortSignal): Promise<string[]> {
  const key = await dependencyKey(input);
  if (key === undefined || existsSync(join(input.workspace, 'node_modules'))) return build();
  const entry = join(input.root, key);
  if (await stored(entry)) {
    await copyTree(join(entry, 'node_modules'), join(input.workspace, 'node_modules'));
    return ['node_modules'];
  }
  const lockfile = LOCKFILES.find((name) => existsSync(join(input.workspace, name))) as string;
  const before = await readFile(join(input.workspace, lockfile));
  const outputs = await build();
  if (!(await reusable(input.workspace, outputs, lockfile, before))) return outputs;
  await mkdir(input.root, { recursive: true });
  const release = await acquireLock(join(input.root, `${key}.lock`), signal);
  try {
    if (await stored(entry)) return outputs;
    const staging = join(input.root, `.tmp-${key}-${process.pid}-${Math.random().toString(36).slice(2)}`);
    try {
      await mkdir(staging);
      await copyTree(join(input.workspace, 'node_modules'), join(staging, 'node_modules'));
      await writeFile(join(staging, 'outputs.json'), `${JSON.stringify(outputs)}\n`);
      await rename(staging, entry);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  } finally {
    await release();
  }
  return outputs;
}

async function stored(entry: string): Promise<boolean> {
  const text = await readFile(join(entry, 'outputs.json'), 'utf8').catch(() => undefined);
  return text !== undefined && text.trim() === JSON.stringify(['node_modules']);
}

/** What setup made may serve another workspace: node_modules alone, the lockfile untouched, nothing tied to this path. */
async function reusable(workspace: string, outputs: readonly string[], lockfile: string, before: Buffer): Promise<boolean> {
  if (outputs.length !== 1 || outputs[0] !== 'node_modules') return false;
  const after = await readFile(join(workspace, lockfile)).catch(() => undefined);
  if (after === undefined || !after.equals(before)) return false;
  if (await mentionsPath(workspace, outputs)) return false;
  return linksStayInside(join(workspace, 'node_modules'));
}

/**
 * Every symlink under `dir` points inside it (`.bin` entries, hoisted packages): a link to the
 * project's own files (a workspace package, a `file:` dependency) would point elsewhere once the
 * tree is copied into another project.
 */
async function linksStayInside(dir: string): Promise<boolean> {
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    for (const name of await readdir(current)) {
      const path = join(current, name);
      const info = await lstat(path);
      if (info.isSymbolicLink()) {
        const target = await readlink(path);
        const resolved = isAbsolute(target) ? target : resolve(current, target);
        const rel = relative(dir, resolved);
        if (rel.startsWith('..') || isAbsolute(rel)) return false;
      } else if (info.isDirectory()) pending.push(path);
    }
  }
  return true;
}
