import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, readlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

export interface BuildContext {
  /** Absolute context directory. */
  context: string;
  /** Absolute Dockerfile path, inside the context. */
  dockerfile: string;
  buildArgs: Readonly<Record<string, string>>;
  platform?: string;
}

export interface HashedContext {
  /** SHA-256 (hex) of everything the build sees: the cache key. */
  hash: string;
  /** Context-relative paths (POSIX separators) of the files and links sent to the engine, sorted. */
  files: string[];
}

/** Past this many entries a context is almost surely a mistake (a repo's node_modules, `/`). */
export const MAX_CONTEXT_FILES = 100_000;

/** Bumped when what is hashed changes, so an old cache entry is never taken for a new one. */
const HASH_FORMAT = 'crucible-env-context/1';

/**
 * Hashes a build context: every file's path, type, executable bit and content (a symlink's target),
 * the Dockerfile's path, the build arguments and the platform. Two contexts with one hash build
 * the same image from the same base; a changed file anywhere in the context changes it. Files a
 * `.dockerignore` leaves out are hashed too (so is the .dockerignore): a rebuild too many, never one
 * too few.
 */
export async function hashContext(input: BuildContext): Promise<HashedContext> {
  const files = await listFiles(input.context);
  const hash = createHash('sha256');
  const field = (value: string): void => {
    hash.update(`${Buffer.byteLength(value)}:`);
    hash.update(value);
  };
  field(HASH_FORMAT);
  field(posix(relative(input.context, input.dockerfile)));
  field(input.platform ?? '');
  for (const key of Object.keys(input.buildArgs).sort()) {
    field(key);
    field(input.buildArgs[key] ?? '');
  }
  for (const rel of files) {
    const abs = join(input.context, ...rel.split('/'));
    const info = await lstat(abs);
    field(rel);
    if (info.isSymbolicLink()) {
      field('link');
      field(await readlink(abs));
    } else {
      field(info.mode & 0o111 ? 'exec' : 'file');
      field(await fileDigest(abs));
    }
  }
  return { hash: hash.digest('hex'), files };
}

/** Regular files and symlinks under `root`, relative, sorted; directories are walked, never followed through a link. */
async function listFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries) {
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) await walk(abs);
      else if (entry.isFile() || entry.isSymbolicLink()) out.push(posix(relative(root, abs)));
      if (out.length > MAX_CONTEXT_FILES) {
        throw new Error(`the build context ${root} holds more than ${MAX_CONTEXT_FILES} files`);
      }
    }
  };
  await walk(root);
  return out.sort();
}

async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function posix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}
