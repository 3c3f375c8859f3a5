/**
 * A task's baseline built once per run: the preflight prepares the task (repo, setup, baseline
 * commit, the workspace's own `.git`) and keeps that tree and the baseline's git directory in
 * `<runDir>/preflight/<task>/` until the run ends; every attempt of the task then starts from a
 * copy of the tree instead of preparing it again.
 *
 * The clean-copy guarantee holds: the kept tree lies in the state directory, which every sandbox
 * hides, and is only ever copied (`cp -a`, never hard links), so each attempt's workspace and each
 * test run's tree are its own; it also serves as every attempt's pristine tree, which is why no
 * test run may move it (TestBench.pristineShared) and no attempt needs a pristine copy. The baseline's git directory is shown to sandboxes read-only (its
 * objects, for the workspace's alternates) and nothing writes to it after the commit: each
 * attempt gets a store of its own for the objects it makes.
 *
 * Not shared: a task whose setup output names the path it was built at (a virtualenv: not
 * relocatable, see prepared-cache.ts) or whose setup ran with the prepared cache off; its
 * attempts prepare themselves as before.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { IgnoredManifest } from '../domain/evidence/index.js';
import { removeTree, type Baseline } from '../infra/workspace/index.js';
import type { BenchPaths } from './bench-paths.js';

export interface SharedTaskTree {
  /** The post-setup tree as the baseline committed it, with the workspace's `.git`: copied from, never used in place. */
  dir: string;
  baseline: Baseline;
  ignored: IgnoredManifest;
  /** The prepared-tree cache entry the preflight used, when setup's output was stored there. */
  preparedKey?: string;
}

/** What the preflight keeps of a task it shares (the rest of ATTEMPT_SCRATCH_DIRS goes). */
export const SHARED_TREE_DIRS = ['workspace', 'baseline.git'];

/**
 * An attempt's paths over the task's shared tree: its pristine tree is that tree itself, which its
 * test runs copy from (never move or write), so the attempt makes one copy fewer than one that
 * prepares itself.
 */
export function sharedTreePaths(own: BenchPaths, shared: SharedTaskTree): BenchPaths {
  return { ...own, pristine: shared.dir, pristineShared: true };
}

/** Removes every task's shared tree under the run's preflight directory, once no attempt needs them. */
export async function removeSharedTrees(preflightDir: string): Promise<void> {
  const tasks = await readdir(preflightDir).catch(() => [] as string[]);
  await Promise.all(
    tasks.map(async (name) => {
      const dir = join(preflightDir, name);
      await Promise.all(SHARED_TREE_DIRS.map((d) => removeTree(join(dir, d))));
      const left = await readdir(dir).catch(() => undefined);
      if (left !== undefined && left.length === 0) await rm(dir, { recursive: true, force: true });
    }),
  );
}
