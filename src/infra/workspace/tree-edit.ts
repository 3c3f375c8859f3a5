import { lstat, readdir, readlink, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Baseline } from './baseline.js';
import { git, type GitTarget } from './git.js';

/** One `git update-index --index-info` line: `<mode> <sha>\t<path>`; mode 0 removes the path. */
export type IndexUpdate = string;

const ZERO_SHA = '0'.repeat(40);

export function removal(path: string): IndexUpdate {
  return `0 ${ZERO_SHA}\t${path}`;
}

export function entry(mode: string, sha: string, path: string): IndexUpdate {
  return `${mode} ${sha}\t${path}`;
}

/**
 * `tree` with `updates` applied, as a new tree in the harness's private store. A file added where
 * a directory (or a symlink) stood replaces it, and the other way round, as the updates say.
 */
export async function editTree(baseline: Baseline, tree: string, updates: readonly IndexUpdate[]): Promise<string> {
  if (updates.length === 0) return tree;
  const indexFile = join(baseline.store, `edit-${process.pid}-${Math.random().toString(36).slice(2)}.index`);
  const target: GitTarget = { gitDir: baseline.store, indexFile };
  try {
    await git(target, ['read-tree', tree]);
    await git(target, ['update-index', '-z', '--replace', '--index-info'], { stdin: `${updates.join('\0')}\0` });
    return (await git(target, ['write-tree'])).trim();
  } finally {
    await rm(indexFile, { force: true });
  }
}

/**
 * `tree` with every file of the harness's own directory `dir` (held-out tests, say) laid over it
 * at the same relative paths. Whatever the tree had at those paths, or in their way, gives way.
 */
export async function overlayDirectory(baseline: Baseline, tree: string, dir: string): Promise<string> {
  const files: Array<{ path: string; mode: string }> = [];
  const links: Array<{ path: string; target: string }> = [];
  const visit = async (rel: string): Promise<void> => {
    for (const item of await readdir(rel ? join(dir, rel) : dir, { withFileTypes: true })) {
      const path = rel ? `${rel}/${item.name}` : item.name;
      if (item.name === '.git') continue;
      if (item.isDirectory()) await visit(path);
      else if (item.isSymbolicLink()) links.push({ path, target: await readlink(join(dir, path)) });
      else if (item.isFile()) files.push({ path, mode: ((await lstat(join(dir, path))).mode & 0o111) !== 0 ? '100755' : '100644' });
    }
  };
  await visit('');
  const target: GitTarget = { gitDir: baseline.store };
  const shas =
    files.length === 0
      ? []
      : (await git(target, ['hash-object', '-w', '--no-filters', '--stdin-paths'], { stdin: `${files.map((f) => join(dir, f.path)).join('\n')}\n` }))
          .trim()
          .split('\n');
  const updates = files.map((f, i) => entry(f.mode, shas[i] ?? '', f.path));
  for (const link of links) {
    const sha = (await git(target, ['hash-object', '-w', '--no-filters', '--stdin'], { stdin: link.target })).trim();
    updates.push(entry('120000', sha, link.path));
  }
  return editTree(baseline, tree, updates);
}
