import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../../core/errors.js';
import type { NpmFiles, NpmPackageRef, Task } from '../../core/types/index.js';
import { git } from '../../infra/workspace/index.js';
import { readPackageTarball, TarError, writeEntries, type TarEntry } from './npm-tar.js';

/** Which task field named the package: errors point at it. */
export type NpmRole = 'repo' | 'tests_from' | 'oracle';

const SPEC_FIELD: Record<NpmRole, string> = { repo: 'repo.npm', tests_from: 'tests_from.npm', oracle: 'oracle.from_npm' };

/** An npm source that cannot be used: a defect of the task, named by the field to fix. */
export class NpmSourceError extends InputError {
  constructor(
    readonly field: string,
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${field} ${problem} (fix: ${fix})`);
    this.name = 'NpmSourceError';
  }
}

/** A registry answer larger than this is refused: the packument and the tarball are untrusted. */
const MAX_DOWNLOAD = 128 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 120_000;

const label = (ref: NpmPackageRef): string => `${ref.name}@${ref.version}`;

const inFlight = new Map<string, Promise<Buffer>>();

/**
 * The package's tarball, verified. Fetched once into `<cache>/npm/` (an in-process promise per
 * package, and an atomic rename so a concurrent process never reads half a file), and checked
 * against its SRI sha512 on every use: the registry's `dist.integrity`, which a pinned
 * `integrity:` must equal.
 */
export function npmTarball(ref: NpmPackageRef, role: NpmRole, cacheDir: string): Promise<Buffer> {
  const key = `${ref.registry}\0${label(ref)}\0${ref.integrity ?? ''}\0${cacheDir}`;
  let pending = inFlight.get(key);
  if (!pending) {
    pending = cachedOrFetched(ref, role, cacheDir).finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  return pending;
}

function cachePaths(ref: NpmPackageRef, cacheDir: string): { tgz: string; integrity: string; dir: string } {
  const registryTag = createHash('sha256').update(ref.registry).digest('hex').slice(0, 12);
  const dir = join(cacheDir, 'npm', registryTag, ref.name.replace('/', '+'));
  return { dir, tgz: join(dir, `${ref.version}.tgz`), integrity: join(dir, `${ref.version}.integrity`) };
}

async function cachedOrFetched(ref: NpmPackageRef, role: NpmRole, cacheDir: string): Promise<Buffer> {
  const paths = cachePaths(ref, cacheDir);
  if (existsSync(paths.tgz) && existsSync(paths.integrity)) {
    const known = (await readFile(paths.integrity, 'utf8')).trim();
    if (ref.integrity !== undefined && ref.integrity !== known) throw pinMismatch(ref, role, known);
    const data = await readFile(paths.tgz);
    if (sri(data) === known) return data;
    // A damaged cache entry is fetched again, never used.
  }
  const dist = await registryDist(ref, role);
  if (ref.integrity !== undefined && ref.integrity !== dist.integrity) throw pinMismatch(ref, role, dist.integrity);
  const data = await download(dist.tarball, ref, role);
  const actual = sri(data);
  if (actual !== dist.integrity) {
    throw new NpmSourceError(
      SPEC_FIELD[role],
      `${label(ref)}: the tarball ${dist.tarball} hashes to ${actual}, not the registry's dist.integrity ${dist.integrity}`,
      'the registry (or a proxy) served other bytes; check npm_config_registry and retry',
    );
  }
  await mkdir(paths.dir, { recursive: true });
  const tmp = `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  await writeFile(paths.tgz + tmp, data);
  await rename(paths.tgz + tmp, paths.tgz);
  await writeFile(paths.integrity + tmp, `${actual}\n`);
  await rename(paths.integrity + tmp, paths.integrity);
  return data;
}

function pinMismatch(ref: NpmPackageRef, role: NpmRole, registryIntegrity: string): NpmSourceError {
  const field = role === 'repo' ? 'repo.integrity' : `${role}.integrity`;
  return new NpmSourceError(
    field,
    `${label(ref)}: the registry's dist.integrity is ${registryIntegrity}, not the pinned ${ref.integrity ?? ''}`,
    `if the package was republished on purpose, pin the new value (npm view ${label(ref)} dist.integrity); otherwise do not use this registry`,
  );
}

export function sri(data: Buffer): string {
  return `sha512-${createHash('sha512').update(data).digest('base64')}`;
}

async function registryDist(ref: NpmPackageRef, role: NpmRole): Promise<{ integrity: string; tarball: string }> {
  const url = `${ref.registry}/${ref.name.replace('/', '%2f')}`;
  const body = await download(url, ref, role, { accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8' });
  let packument: unknown;
  try {
    packument = JSON.parse(body.toString('utf8'));
  } catch {
    throw new NpmSourceError(SPEC_FIELD[role], `${url} did not answer with JSON`, 'check the registry URL (npm_config_registry or repo.registry)');
  }
  const versions = (packument as { versions?: Record<string, { dist?: { integrity?: unknown; tarball?: unknown } }> }).versions ?? {};
  const dist = Object.hasOwn(versions, ref.version) ? versions[ref.version]?.dist : undefined;
  if (dist === undefined) {
    throw new NpmSourceError(SPEC_FIELD[role], `${label(ref)}: no such version in ${ref.registry}`, `name a published version (npm view ${ref.name} versions)`);
  }
  const integrity = typeof dist.integrity === 'string' ? dist.integrity.split(/\s+/).find((h) => h.startsWith('sha512-')) : undefined;
  if (integrity === undefined || typeof dist.tarball !== 'string' || !/^https?:\/\//.test(dist.tarball)) {
    throw new NpmSourceError(
      SPEC_FIELD[role],
      `${label(ref)}: the registry gives no sha512 dist.integrity and tarball URL to verify against`,
      'use a version published with an SRI sha512 hash (npm 5 and later)',
    );
  }
  return { integrity, tarball: dist.tarball };
}

async function download(url: string, ref: NpmPackageRef, role: NpmRole, headers: Record<string, string> = {}): Promise<Buffer> {
  let response: Response;
  try {
    response = await fetch(url, { headers, redirect: 'follow', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (error) {
    throw new NpmSourceError(SPEC_FIELD[role], `${label(ref)}: cannot fetch ${url} (${(error as Error).message})`, 'check that the registry is reachable');
  }
  if (response.status === 404) {
    throw new NpmSourceError(SPEC_FIELD[role], `${label(ref)}: ${url} answers 404`, `check the package name (npm view ${ref.name} versions)`);
  }
  if (!response.ok) {
    throw new NpmSourceError(SPEC_FIELD[role], `${label(ref)}: ${url} answers ${response.status}`, 'check the registry and retry');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += (chunk as Uint8Array).length;
    if (size > MAX_DOWNLOAD) throw new NpmSourceError(SPEC_FIELD[role], `${label(ref)}: ${url} is larger than ${MAX_DOWNLOAD} bytes`, 'use a smaller package');
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks);
}

async function packageEntries(ref: NpmPackageRef, role: NpmRole, cacheDir: string): Promise<TarEntry[]> {
  const data = await npmTarball(ref, role, cacheDir);
  try {
    return readPackageTarball(data);
  } catch (error) {
    if (!(error instanceof TarError)) throw error;
    throw new NpmSourceError(
      SPEC_FIELD[role],
      `${label(ref)}: the tarball has an entry Crucible will not unpack: ${error.message}`,
      'use another package or version; only regular files and directories under package/ are unpacked',
    );
  }
}

/** `repo: { npm }`: the package's files into `dest` (existing, empty), `package/` stripped. */
export async function materializeNpm(ref: NpmPackageRef, dest: string, cacheDir: string): Promise<void> {
  await writeEntries(await packageEntries(ref, 'repo', cacheDir), dest);
}

/** The entries at `paths` (each a file or a directory), each path required to name something. */
async function selectPaths(files: NpmFiles, role: 'tests_from' | 'oracle', cacheDir: string): Promise<TarEntry[]> {
  const entries = await packageEntries(files.package, role, cacheDir);
  return files.paths.flatMap((p, i) => {
    const chosen = entries.filter((e) => e.path === p || e.path.startsWith(`${p}/`));
    if (chosen.length === 0) {
      throw new NpmSourceError(
        `${role}.paths[${i}]`,
        `${p} is not in ${label(files.package)}`,
        `list files or directories the package has (npm pack ${label(files.package)}; tar tzf)`,
      );
    }
    return chosen;
  });
}

/**
 * `tests_from`: each listed path is replaced by the later version's (a directory wholesale, so
 * tests the later version removed go too). Runs before setup and the baseline commit, so the
 * tests are part of what the agent sees, as in the usual fail-to-pass setup.
 */
export async function layNpmTests(files: NpmFiles, dest: string, cacheDir: string): Promise<void> {
  const entries = await selectPaths(files, 'tests_from', cacheDir);
  for (const p of files.paths) {
    await refuseLinkedPath(dest, p);
    await rm(join(dest, p), { recursive: true, force: true });
  }
  for (const entry of entries) await refuseLinkedPath(dest, entry.path);
  await writeEntries(entries, dest);
}

/** A repo that is not an npm tarball (git, local) may hold symlinks: never write through one. */
async function refuseLinkedPath(root: string, rel: string): Promise<void> {
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const stat = await lstat(join(root, ...parts.slice(0, i))).catch(() => undefined);
    if (stat === undefined) return;
    if (stat.isSymbolicLink() || !stat.isDirectory()) {
      throw new NpmSourceError(
        'tests_from.paths',
        `${parts.slice(0, i).join('/')} in the repo is not a directory (a symlink or a file)`,
        'list paths the repo has as plain directories',
      );
    }
  }
}

const oracles = new Map<string, Promise<string>>();

/**
 * The oracle patch of `oracle: { from_npm, paths }`: what changes in those paths from the repo's
 * version to the later one, as a `git diff` (binary-safe, new and deleted files included).
 */
export function npmOraclePatch(base: NpmPackageRef, later: NpmFiles, cacheDir: string): Promise<string> {
  const key = JSON.stringify([base, later]);
  let pending = oracles.get(key);
  if (!pending) {
    pending = diffVersions(base, later, cacheDir);
    pending.catch(() => oracles.delete(key));
    oracles.set(key, pending);
  }
  return pending;
}

async function diffVersions(base: NpmPackageRef, later: NpmFiles, cacheDir: string): Promise<string> {
  const [before, after] = await Promise.all([packageEntries(base, 'repo', cacheDir), selectPaths(later, 'oracle', cacheDir)]);
  const inPaths = (e: TarEntry): boolean => later.paths.some((p) => e.path === p || e.path.startsWith(`${p}/`));
  const scratch = await mkdtemp(join(tmpdir(), 'crucible-npm-oracle-'));
  try {
    const work = join(scratch, 'tree');
    await mkdir(work);
    const target = { gitDir: join(scratch, 'git'), workTree: work };
    await git({ cwd: scratch }, ['init', '--quiet', '--bare', target.gitDir]);
    await writeEntries(before.filter(inPaths), work);
    await git(target, ['add', '-A', '.']);
    await git(target, ['commit', '--quiet', '--allow-empty', '-m', label(base)]);
    await rm(work, { recursive: true, force: true });
    await mkdir(work);
    await writeEntries(after, work);
    await git(target, ['add', '-A', '.']);
    const patch = await git(target, ['diff', '--cached', '--binary', '--no-renames', '--no-color']);
    if (patch.trim() === '') {
      throw new NpmSourceError(
        'oracle.paths',
        `${later.paths.join(', ')}: the same in ${label(base)} and ${label(later.package)}`,
        'list the source files the fix changed',
      );
    }
    return patch;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The npm parts of a task beyond its repo, done right after the repo is in `workspace`: the
 * `tests_from` files, and the `from_npm` oracle's patch (computed once per process and kept on the
 * task, where the oracle agent, preflight and `crucible tests --at oracle` read it).
 */
export async function prepareNpmParts(task: Task, workspace: string, cacheDir: string): Promise<void> {
  if (task.testsFrom) await layNpmTests(task.testsFrom, workspace, cacheDir);
  const oracle = task.oracle;
  if (oracle?.fromNpm && oracle.patch === '' && task.repo.kind === 'npm') {
    oracle.patch = await npmOraclePatch(task.repo.package, oracle.fromNpm, cacheDir);
  }
}
