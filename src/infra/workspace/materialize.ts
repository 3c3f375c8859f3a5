import { execFile } from 'node:child_process';
import { rename, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { copyIndex, type Baseline } from './baseline.js';
import { git } from './git.js';
import { removeTree } from './remove-tree.js';

const execFileAsync = promisify(execFile);

/**
 * Copies a directory the harness made (never one an agent touched) to `dest`, which must not
 * exist. `--reflink=auto` clones blocks where the filesystem can; hard links are never used, since
 * whoever works in the copy could write through them. Symlinks are copied as symlinks.
 */
export async function copyTree(from: string, dest: string): Promise<void> {
  treesCopied += 1;
  await execFileAsync('cp', ['-a', '--reflink=auto', '--no-target-directory', '--', from, dest], { maxBuffer: 1024 * 1024 });
}

let treesCopied = 0;

/** How many trees this process has copied: what an attempt's prepare and test runs cost in full copies. */
export function treeCopyCount(): number {
  return treesCopied;
}

export interface MaterializeInput {
  /** The post-setup tree, as the harness committed it (ignored files such as node_modules included). */
  pristine: string;
  dest: string;
  baseline: Baseline;
  /** The tree to end up with, as a git tree id in the harness's store. */
  tree: string;
  /** Move the pristine tree into place instead of copying it: for its last use. */
  consume?: boolean;
}

/**
 * Builds `dest` as the pristine tree with `tree` checked out over it: files git tracks come from
 * `tree`, everything git does not track (ignored build output, installed dependencies) from the
 * pristine copy. Git does the writing, and git never writes through a symlink in a leading path,
 * so a symlink inside `tree` cannot send a write outside `dest`. The `.git` the pristine tree has
 * comes along; its index and HEAD stay the baseline's, so `git status` there shows `tree`'s change.
 */
export async function materializeTree(input: MaterializeInput): Promise<void> {
  const { dest, baseline } = input;
  // The last test run's copy may hold whatever code under test left there.
  await removeTree(dest);
  if (input.consume) await rename(input.pristine, dest);
  else await copyTree(input.pristine, dest);
  if (input.tree !== baseline.tree) {
    const indexFile = `${dest}.index`;
    await copyIndex(baseline, indexFile);
    try {
      // The copy is the harness's own, fresh from `cp -a` (mtimes and sizes kept, inodes new), so
      // whole-second mtime and size say truly whether a file is the committed one.
      const target = { gitDir: baseline.store, workTree: dest, indexFile };
      const minimal = ['-c', 'core.checkStat=minimal', '-c', 'core.trustctime=false'];
      // Entries git smudged as racy when it wrote the index are re-read once; nothing else is.
      await git(target, [...minimal, 'update-index', '-q', '--refresh']).catch(() => undefined);
      await git(target, [...minimal, 'read-tree', '-m', '-u', baseline.tree, input.tree]);
    } finally {
      await rm(indexFile, { force: true });
    }
  }
}
