import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { NotGraded } from '../../core/types/index.js';
import { NESTED_GIT_NAME, git, type Baseline, type HeldTree } from '../../infra/workspace/index.js';

/** Ignored files of a tree (path → type, size and mtime), to tell which ones an agent touched. */
export type IgnoredManifest = Map<string, string>;

const LISTED = 50;
const STAT_BATCH = 64;

/** `held`: the tree is an overlay its holder keeps mounted (HeldTree). */
export async function ignoredManifest(baseline: Baseline, workTree: string, held?: HeldTree): Promise<IgnoredManifest> {
  const out = await git({ gitDir: baseline.store, workTree, ...(held ? { enter: held.enter } : {}) }, [
    'ls-files',
    '-z',
    '--others',
    '--ignored',
    '--exclude-standard',
  ]);
  const host = held?.host ?? workTree;
  const manifest: IgnoredManifest = new Map();
  const paths = out.split('\0').filter((path) => path && !path.split('/').includes(NESTED_GIT_NAME));
  // A prepared node_modules has thousands of ignored files: stat them in batches, not one by one.
  for (let i = 0; i < paths.length; i += STAT_BATCH) {
    const batch = paths.slice(i, i + STAT_BATCH);
    const infos = await Promise.all(batch.map((path) => lstat(join(host, path)).catch(() => undefined)));
    batch.forEach((path, j) => {
      const info = infos[j];
      if (info) manifest.set(path, `${info.isSymbolicLink() ? 'l' : 'f'}:${info.size}:${info.mtimeMs}`);
    });
  }
  return manifest;
}

/**
 * What the verification copy left out of what the agent did: ignored files it added, changed or
 * deleted (compared with the pristine tree's), plus the dependency files and new tests the test
 * guard set aside.
 */
export function notGraded(
  before: IgnoredManifest,
  after: IgnoredManifest,
  setAside: { dependencies: readonly string[]; newTests: readonly string[] },
): NotGraded {
  const items: NotGraded['items'] = [];
  let count = 0;
  const add = (path: string, reason: NotGraded['items'][number]['reason']): void => {
    count++;
    if (items.length < LISTED) items.push({ path, reason });
  };
  for (const [path, signature] of after) if (before.get(path) !== signature) add(path, 'ignored');
  for (const path of before.keys()) if (!after.has(path)) add(path, 'ignored');
  for (const path of setAside.dependencies) add(path, 'dependency');
  for (const path of setAside.newTests) add(path, 'new_test');
  return { count, items };
}
