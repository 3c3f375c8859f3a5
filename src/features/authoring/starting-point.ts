/**
 * The task's starting point: the tree of commit A with the test paths as they are at B, written
 * out as a plain directory (the task's `repo: { path }`). No new kind of repo source: the task set
 * carries its own copy and no longer depends on the author's repository or its history (which
 * would also show the agent the fix).
 *
 * Built through a throwaway index of our own (GIT_INDEX_FILE), so the author's index, work tree
 * and refs are never touched, and file modes and symlinks come out exactly as git stores them.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../../infra/workspace/index.js';
import type { CommitRange } from './commits.js';

const ZERO_ID = '0'.repeat(40);

export async function writeStartingPoint(range: CommitRange, testPaths: readonly string[], dest: string): Promise<void> {
  const scratch = await mkdtemp(join(tmpdir(), 'crucible-task-new-'));
  const indexFile = join(scratch, 'index');
  try {
    const target = { gitDir: range.gitDir, indexFile };
    await git(target, ['read-tree', range.from]);
    // Each test path as at B: its blob and mode, or gone when B deleted it.
    const atB = await git(target, ['--literal-pathspecs', 'ls-tree', '-r', '-z', '--full-tree', range.to, '--', ...testPaths]);
    const present = new Set<string>();
    const lines: string[] = [];
    for (const entry of atB.split('\0').filter((e) => e !== '')) {
      lines.push(entry);
      present.add(entry.slice(entry.indexOf('\t') + 1));
    }
    for (const path of testPaths) if (!present.has(path)) lines.push(`0 ${ZERO_ID}\t${path}`);
    await git(target, ['update-index', '-z', '--index-info'], { stdin: lines.map((l) => `${l}\0`).join('') });
    await mkdir(dest, { recursive: true });
    // --work-tree makes checkout-index write into dest (a bare repository has no work tree of its own).
    await git({ ...target, workTree: dest }, ['checkout-index', '--all', '--force']);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
