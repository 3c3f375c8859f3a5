import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * A fingerprint of every entry under the roots: type, size, mtime and content hash (files),
 * target (symlinks), mtime (directories). Two snapshots differ exactly when something under a
 * root was added, removed, written or touched. With `mtimes: false`, only added, removed or
 * rewritten count: for trees git reads as alternates, whose objects it touches ("freshens")
 * whenever another store writes one it already holds.
 */
export function snapshotTree(roots: string[], options: { mtimes?: boolean } = {}): Map<string, string> {
  const mtime = (ms: number): string => (options.mtimes === false ? '' : ` mtime=${ms}`);
  const out = new Map<string, string>();
  const visit = (root: string, path: string): void => {
    let st;
    try {
      st = lstatSync(path);
    } catch {
      return;
    }
    const key = `${root}:${relative(root, path) || '.'}`;
    if (st.isSymbolicLink()) out.set(key, `symlink -> ${readlinkSync(path)}`);
    else if (st.isDirectory()) {
      out.set(key, `dir${mtime(st.mtimeMs)}`);
      for (const name of readdirSync(path).sort()) visit(root, join(path, name));
    } else if (st.isFile()) {
      out.set(key, `file size=${st.size}${mtime(st.mtimeMs)} sha256=${createHash('sha256').update(readFileSync(path)).digest('hex')}`);
    } else out.set(key, `other mode=${st.mode}`);
  };
  for (const root of roots) visit(root, root);
  return out;
}

/** What changed between two snapshots, one line per entry. */
export function treeChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const changes: string[] = [];
  for (const [path, was] of before) {
    const now = after.get(path);
    if (now === undefined) changes.push(`deleted ${path} (${was})`);
    else if (now !== was) changes.push(`changed ${path}: ${was} -> ${now}`);
  }
  for (const [path, now] of after) if (!before.has(path)) changes.push(`added ${path} (${now})`);
  return changes;
}

/** Files at or above `bytes` under a directory (symlinks not followed). */
export function filesLargerThan(dir: string, bytes: number): string[] {
  const big: string[] = [];
  const visit = (path: string): void => {
    let st;
    try {
      st = lstatSync(path);
    } catch {
      return;
    }
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else if (st.isFile() && st.size >= bytes) big.push(`${relative(dir, path)} (${st.size} bytes)`);
  };
  visit(dir);
  return big;
}
