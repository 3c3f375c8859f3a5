import { lstat, mkdir, readdir, readFile, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import type { Redis } from 'ioredis';
import { getBlob, isSha256, putBlobs, sha256Hex } from './blobs.js';

/**
 * A directory tree as a per-file manifest of content hashes. Entries are files (hash, executable
 * bit), directories and relative symlinks that stay inside the tree; nothing else is representable.
 */
export type TreeEntry =
  | { path: string; type: 'file'; sha256: string; size: number; exec: boolean }
  | { path: string; type: 'dir' }
  | { path: string; type: 'symlink'; target: string };

export interface TreeManifest {
  version: 1;
  entries: TreeEntry[];
}

/** What packing a tree gives: the manifest and the blobs it names. */
export interface PackedTree {
  manifest: TreeManifest;
  blobs: Map<string, Buffer>;
  bytes: number;
}

/**
 * Reads `roots` (directories or files, all under `base`) into a manifest with paths relative to
 * `base`. `skip` leaves out directories (by absolute path); devices, sockets and FIFOs are refused,
 * symlinks that point outside `base` too, so what ships is exactly what a worker can recreate.
 */
export async function packTree(
  base: string,
  roots: readonly string[],
  options: { skip?: (abs: string) => boolean; maxBytes?: number } = {},
): Promise<PackedTree> {
  const entries = new Map<string, TreeEntry>();
  const blobs = new Map<string, Buffer>();
  let bytes = 0;
  const add = async (abs: string): Promise<void> => {
    if (options.skip?.(abs)) return;
    const rel = relative(base, abs).split(sep).join('/');
    if (rel !== '' && entries.has(rel)) return;
    const stat = await lstat(abs);
    if (stat.isSymbolicLink()) {
      const target = await readlink(abs);
      if (isAbsolute(target) || !inside(base, resolve(dirname(abs), target)))
        throw new Error(`${abs} is a symlink out of the shipped tree (${target}); workers would not have its target`);
      entries.set(rel, { path: rel, type: 'symlink', target: target.split(sep).join('/') });
    } else if (stat.isDirectory()) {
      if (rel !== '') entries.set(rel, { path: rel, type: 'dir' });
      for (const name of (await readdir(abs)).sort()) await add(join(abs, name));
    } else if (stat.isFile()) {
      const content = await readFile(abs);
      bytes += content.length;
      if (options.maxBytes !== undefined && bytes > options.maxBytes)
        throw new Error(`the task set and what it references are over ${options.maxBytes} bytes, too much to ship through Redis`);
      const sha = sha256Hex(content);
      blobs.set(sha, content);
      entries.set(rel, { path: rel, type: 'file', sha256: sha, size: content.length, exec: (stat.mode & 0o111) !== 0 });
    } else {
      throw new Error(`${abs} is not a file, directory or symlink; it cannot be shipped to workers`);
    }
  };
  for (const root of roots) {
    // The directories leading to a root, so the worker's tree has them even when they hold nothing else.
    const parts = relative(base, root)
      .split(sep)
      .filter((p) => p !== '');
    for (let i = 1; i < parts.length; i++) {
      const rel = parts.slice(0, i).join('/');
      if (!entries.has(rel)) entries.set(rel, { path: rel, type: 'dir' });
    }
    await add(root);
  }
  return { manifest: { version: 1, entries: [...entries.values()].sort((a, b) => (a.path < b.path ? -1 : 1)) }, blobs, bytes };
}

/** Stores a packed tree's blobs and its manifest; returns the manifest's hash, the tree's identity. */
export async function storeTree(redis: Redis, packed: PackedTree): Promise<string> {
  const manifest = Buffer.from(JSON.stringify(packed.manifest));
  const sha = sha256Hex(manifest);
  await putBlobs(redis, new Map([...packed.blobs, [sha, manifest]]));
  return sha;
}

/**
 * A path from the store, checked: relative, `/`-separated, no `.`/`..`/empty segments, no NUL or
 * backslash. Returns it resolved under `root`; throws otherwise.
 */
export function safePath(root: string, path: unknown): string {
  if (typeof path !== 'string' || path === '' || path.length > 4096 || path.includes('\0') || path.includes('\\') || path.startsWith('/'))
    throw new Error(`unsafe path in the store: ${JSON.stringify(path).slice(0, 120)}`);
  if (path.split('/').some((s) => s === '' || s === '.' || s === '..')) throw new Error(`unsafe path in the store: ${JSON.stringify(path).slice(0, 120)}`);
  const abs = resolve(root, path);
  if (!inside(root, abs) || abs === resolve(root)) throw new Error(`unsafe path in the store: ${JSON.stringify(path).slice(0, 120)}`);
  return abs;
}

export function inside(root: string, abs: string): boolean {
  const rel = relative(resolve(root), abs);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

/** Parses and checks a manifest's shape; every path and hash is checked again as it is used. */
export function parseManifest(bytes: Buffer): TreeManifest {
  const value = JSON.parse(bytes.toString('utf8')) as Partial<TreeManifest>;
  if (value.version !== 1 || !Array.isArray(value.entries)) throw new Error('the tree manifest has an unknown shape');
  return value as TreeManifest;
}

/**
 * Recreates the tree `manifestSha` names at `dest` (which must not exist): fetched into a staging
 * directory beside it, every blob verified against its hash, then renamed into place. Paths never
 * leave `dest`: unsafe paths, symlinks pointing out, and entries under a symlink are refused.
 */
export async function materializeTree(redis: Redis, manifestSha: string, dest: string): Promise<void> {
  const manifest = parseManifest(await getBlob(redis, manifestSha));
  const staging = `${dest}.${process.pid}.${Date.now()}.staging`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  try {
    const links = new Set(manifest.entries.filter((e) => e.type === 'symlink').map((e) => e.path));
    const seen = new Set<string>();
    for (const entry of manifest.entries) {
      const abs = safePath(staging, entry.path);
      if (seen.has(entry.path)) throw new Error(`the tree manifest lists ${entry.path} twice`);
      seen.add(entry.path);
      const segments = entry.path.split('/');
      for (let i = 1; i < segments.length; i++) {
        if (links.has(segments.slice(0, i).join('/'))) throw new Error(`the tree manifest puts ${entry.path} under a symlink`);
      }
      if (entry.type === 'dir') await mkdir(abs, { recursive: true });
      else if (entry.type === 'file') {
        if (!isSha256(entry.sha256)) throw new Error(`the tree manifest has no valid hash for ${entry.path}`);
        await mkdir(dirname(abs), { recursive: true });
        // 'wx': never through something already there (a symlink made by an earlier entry).
        await writeFile(abs, await getBlob(redis, entry.sha256), { flag: 'wx', mode: entry.exec ? 0o755 : 0o644 });
      } else if (entry.type === 'symlink') {
        const target = String(entry.target);
        if (target === '' || target.includes('\0') || posix.isAbsolute(target) || !inside(staging, resolve(dirname(abs), target)))
          throw new Error(`the tree manifest has a symlink out of the tree: ${entry.path} → ${target.slice(0, 120)}`);
        await mkdir(dirname(abs), { recursive: true });
        await symlink(target, abs);
      } else throw new Error(`the tree manifest has an entry of unknown type at ${String((entry as { path?: unknown }).path)}`);
    }
    await rename(staging, dest);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}
