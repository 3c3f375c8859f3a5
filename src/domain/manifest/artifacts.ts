import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';

/**
 * One entry of a directory as a manifest records it. Only regular files are hashed; a symlink is
 * never followed (its target could be anything on the host) and anything else (a fifo, a socket,
 * a device) is never opened: both are recorded by kind, so a change of kind is still seen.
 */
export type ArtifactEntry = { path: string; type: 'file'; sha256: string; size: number } | { path: string; type: 'symlink' | 'other' };

export interface WalkOptions {
  /** Top-level names not walked (scratch trees, the manifest itself). */
  skip?: readonly string[];
}

/**
 * Every entry under `dir`, depth first, paths relative to `dir` with `/`, sorted by path: the
 * order is the same on every machine, so the list serializes the same.
 */
export async function walkArtifacts(dir: string, options: WalkOptions = {}): Promise<ArtifactEntry[]> {
  const skip = new Set(options.skip ?? []);
  const out: ArtifactEntry[] = [];
  const walk = async (rel: string): Promise<void> => {
    const names = (await readdir(rel === '' ? dir : join(dir, rel))).sort();
    for (const name of names) {
      if (rel === '' && skip.has(name)) continue;
      const path = rel === '' ? name : `${rel}/${name}`;
      const full = join(dir, path);
      const info = await lstat(full);
      if (info.isDirectory()) await walk(path);
      else if (info.isSymbolicLink()) out.push({ path, type: 'symlink' });
      else if (info.isFile()) out.push({ path, type: 'file', sha256: await sha256File(full), size: info.size });
      else out.push({ path, type: 'other' });
    }
  };
  await walk('');
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** SHA-256 of a file's bytes, streamed (a trajectory or a JUnit report can be large). */
export async function sha256File(file: string): Promise<string> {
  // A file swapped for a symlink (O_NOFOLLOW) or a fifo (O_NONBLOCK, then fstat) after lstat is refused, not followed or waited on.
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) throw new Error(`${file} is not a regular file`);
    const hash = createHash('sha256');
    for await (const chunk of handle.createReadStream({ autoClose: false })) hash.update(chunk as Buffer);
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}
