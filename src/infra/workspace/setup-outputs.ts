import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A tree's entries (workspace-relative path → `d`, `l:<target>` or `f:<mode>:<sha256>`), with one
 * digest over all of them: what the repo source was before setup ran, and its content hash for the
 * prepared-tree cache. `.git` at the top is never part of it (git owns it, the harness replaces it).
 */
export interface TreeListing {
  entries: Map<string, string>;
  digest: string;
}

export async function listTree(root: string): Promise<TreeListing> {
  const entries = new Map<string, string>();
  const walk = async (rel: string): Promise<void> => {
    const names = (await readdir(join(root, rel))).sort();
    for (const name of names) {
      const path = rel ? `${rel}/${name}` : name;
      if (path === '.git') continue;
      const full = join(root, path);
      const info = await lstat(full);
      if (info.isDirectory()) {
        entries.set(path, 'd');
        await walk(path);
      } else if (info.isSymbolicLink()) {
        entries.set(path, `l:${await readlink(full)}`);
      } else {
        const sha = createHash('sha256')
          .update(await readFile(full))
          .digest('hex');
        entries.set(path, `f:${(info.mode & 0o111) !== 0 ? 'x' : '-'}:${sha}`);
      }
    }
  };
  await walk('');
  const hash = createHash('sha256');
  for (const [path, signature] of entries) hash.update(`${path}\0${signature}\0`);
  return { entries, digest: hash.digest('hex') };
}

/**
 * What setup produced: the top-most paths of `root` that the source listing did not have (a new
 * directory counts once, `node_modules`, not its 6,000 files), or that changed kind (a source file
 * that became a directory). Sorted; a directory's path carries no trailing slash.
 */
export async function setupOutputs(source: TreeListing, root: string): Promise<string[]> {
  const outputs: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    for (const name of (await readdir(join(root, rel))).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      if (path === '.git') continue;
      const before = source.entries.get(path);
      const info = await lstat(join(root, path));
      if (before === undefined || (before === 'd') !== info.isDirectory()) outputs.push(path);
      else if (info.isDirectory()) await walk(path);
    }
  };
  await walk('');
  return outputs;
}

/**
 * Exclude lines (gitignore syntax, anchored at the top) for setup's outputs, so `git add --all`,
 * the agent's captured change and the ignored-file manifest all leave them out. A path git's
 * patterns cannot spell (a newline in it) is still kept out of every tree by the literal pathspecs
 * of `dropPaths`.
 */
export function excludeLines(outputs: readonly string[]): string[] {
  return outputs.filter((p) => !p.includes('\n')).map((p) => `/${p.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`).replace(/ $/, '\\ ')}`);
}
