import { lstat, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/*
 * Every file the dashboard reads comes through here: the path must stay inside `root` both as
 * written and after symlinks are resolved. Requests arrive percent-encoded; they are decoded once,
 * by the router, and anything still odd (NUL, backslashes, a second layer of encoding that would
 * decode to a traversal) is refused rather than interpreted.
 */

export class PathRefused extends Error {
  constructor(reason: string) {
    super(`path refused: ${reason}`);
    this.name = 'PathRefused';
  }
}

/** Ids that name a directory under runs/: no separators, no dots at the start. */
export const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

function within(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Checks a request path (already decoded once) before it touches the file system. */
export function checkRelativePath(path: string): string[] {
  if (path.length === 0 || path.length > 1024) throw new PathRefused('empty or too long');
  if (path.includes('\0')) throw new PathRefused('NUL byte');
  if (path.includes('\\')) throw new PathRefused('backslash');
  if (/%[0-9a-f]{2}/i.test(path)) throw new PathRefused('still percent-encoded after decoding');
  if (path.startsWith('/')) throw new PathRefused('absolute');
  const parts = path.split('/');
  if (parts.some((p) => p === '..' || p === '.' || p === '')) throw new PathRefused('dot segment or empty segment');
  return parts;
}

/**
 * Resolves `path` under `root` and returns its real path, or throws PathRefused when it would
 * leave `root` (by `..`, an absolute path, or a symlink anywhere along the way) or is not a file.
 * A missing file is `null`, so callers can answer 404 without leaking anything about outside paths.
 */
export async function resolveInside(root: string, path: string, kind: 'file' | 'dir' = 'file'): Promise<string | null> {
  const parts = checkRelativePath(path);
  const realRoot = await realpath(root);
  const candidate = resolve(realRoot, ...parts);
  if (!within(realRoot, candidate)) throw new PathRefused('outside the state directory');
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    return null;
  }
  if (!within(realRoot, real)) throw new PathRefused('a symlink leads outside the state directory');
  const stat = await lstat(real);
  if (kind === 'file' ? !stat.isFile() : !stat.isDirectory()) return null;
  return real;
}
