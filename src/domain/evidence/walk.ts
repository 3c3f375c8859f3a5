import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Dependency, VCS and cache directories no guard descends into: installed code, not the repo's. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  '.venv',
  'venv',
  '.tox',
  '.nox',
  'site-packages',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.ruff_cache',
]);

export interface WalkResult {
  /** Workspace-relative paths with `/` separators: files and symlinks, never directories. */
  files: string[];
  /** Directories named `__pycache__` that were skipped (bytecode caches can shadow sources). */
  bytecodeDirs: string[];
  /** True when the walk stopped at `maxEntries`: whatever it returns is then incomplete. */
  truncated: boolean;
}

/** Lists a tree without following symlinks, skipping SKIPPED_DIRS, depth first in name order. */
export async function walkFiles(root: string, maxEntries = 200_000): Promise<WalkResult> {
  const result: WalkResult = { files: [], bytecodeDirs: [], truncated: false };
  let seen = 0;
  const visit = async (rel: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(rel ? join(root, rel) : root, { withFileTypes: true });
    } catch {
      return; // vanished or unreadable: nothing there to guard
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (++seen > maxEntries) {
        result.truncated = true;
        return;
      }
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (entry.name === '__pycache__') result.bytecodeDirs.push(path);
        if (!SKIPPED_DIRS.has(entry.name)) await visit(path);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        result.files.push(path);
      }
    }
  };
  await visit('');
  return result;
}
