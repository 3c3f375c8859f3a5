/**
 * Base and head as git trees in a scratch repository of the harness's own, which copies the
 * objects it needs out of the checkout and writes only its own: the checkout, its index and its
 * `.git` are never written. Working-tree mode hashes the checkout's files into the scratch repo.
 */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { editTree, entry, git, removal, type Baseline, type GitTarget } from '../../infra/workspace/index.js';
import type { Checkout } from './checkout.js';

export interface Source {
  /** The scratch bare repository, holding copies of the objects it needs. */
  gitDir: string;
  /** The checkout's own git directory, for its info/exclude. */
  checkoutGitDir: string;
}

/**
 * Copies `commits` (their trees, not their history) out of the checkout with a shallow local fetch.
 * Not alternates: git "freshens" (touches) an object it finds in an alternate whenever it would
 * write the same object again, and the checkout's `.git` must stay untouched.
 */
export async function openSource(checkout: Checkout, gitDir: string, commits: readonly string[]): Promise<Source> {
  await git({}, ['init', '--quiet', '--bare', gitDir]);
  await git({ gitDir }, ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--depth=1', checkout.gitDir, ...new Set(commits)]);
  return { gitDir, checkoutGitDir: checkout.gitDir };
}

/** Writes the files of `commit` into the empty directory `dest` (no `.git`, no attributes' export-ignore). */
export async function exportCommit(source: Source, commit: string, dest: string): Promise<void> {
  await mkdir(dest, { recursive: true });
  const target: GitTarget = { gitDir: source.gitDir, workTree: dest, indexFile: join(source.gitDir, 'export.index') };
  await git(target, ['read-tree', '--reset', '-u', commit]);
}

export async function commitTree(source: Source, commit: string): Promise<string> {
  return (await git({ gitDir: source.gitDir }, ['rev-parse', `${commit}^{tree}`])).trim();
}

/**
 * The checkout's working tree as a tree: `base` with every tracked change and every untracked
 * file git would not ignore (the checkout's .gitignore files and its info/exclude), leaving out
 * `exclude` (Crucible's own state directory when it lies inside the checkout).
 */
export async function workingTree(source: Source, checkout: Checkout, base: string, exclude: readonly string[]): Promise<string> {
  const info = join(source.gitDir, 'info');
  await mkdir(info, { recursive: true });
  const own = await readFile(join(checkout.gitDir, 'info', 'exclude'), 'utf8').catch(() => '');
  // A worktree's git directory names the repository's own in `commondir`; its info/exclude applies too.
  const commonDir = (await readFile(join(checkout.gitDir, 'commondir'), 'utf8').catch(() => '')).trim();
  const common = commonDir ? await readFile(join(resolve(checkout.gitDir, commonDir), 'info', 'exclude'), 'utf8').catch(() => '') : '';
  const inside = exclude.map((dir) => relative(checkout.root, dir)).filter((rel) => rel !== '' && !rel.startsWith('..') && !isAbsolute(rel));
  await writeFile(join(info, 'exclude'), `${common}\n${own}\n${inside.map((rel) => `/${rel}/`).join('\n')}\n`);
  const target: GitTarget = { gitDir: source.gitDir, workTree: checkout.root, indexFile: join(source.gitDir, 'head.index') };
  await git(target, ['read-tree', base]);
  await git(target, ['add', '--all']);
  return (await git(target, ['write-tree'])).trim();
}

/**
 * The change base → head laid over the baseline tree (base as the harness committed it, after
 * setup), so files setup made stay and only what the change touched differs.
 */
export async function changeOverBaseline(source: Source, baseline: Baseline, baseTree: string, headTree: string): Promise<string> {
  if (baseTree === headTree) return baseline.tree;
  await appendFile(join(baseline.store, 'objects', 'info', 'alternates'), `${join(source.gitDir, 'objects')}\n`);
  const raw = await git({ gitDir: source.gitDir }, ['diff-tree', '-r', '-z', '--no-renames', baseTree, headTree]);
  const fields = raw.split('\0');
  const updates: string[] = [];
  // -z raw output: ":oldmode newmode oldsha newsha status\0path\0" per entry.
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = fields[i] ?? '';
    const path = fields[i + 1] ?? '';
    if (!meta.startsWith(':')) break;
    const [, newMode = '', , newSha = '', status = ''] = meta.slice(1).split(' ');
    updates.push(status === 'D' ? removal(path) : entry(newMode, newSha, path));
  }
  return editTree(baseline, baseline.tree, updates);
}
