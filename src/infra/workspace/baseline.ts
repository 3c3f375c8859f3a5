import { copyFile, mkdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { git, type GitTarget } from './git.js';
import { excludeLines } from './setup-outputs.js';

/**
 * Files that running code leaves behind in repos that do not ignore them. Without this, running
 * pytest once would count as "changing" a repo that has no .gitignore. Never graded: the
 * verification copy is built without them.
 */
export const RUNTIME_DEBRIS = ['__pycache__/', '*.py[co]', '.pytest_cache/', '.mypy_cache/', '.ruff_cache/', '.DS_Store'];

/**
 * What a nested repository's `.git` is renamed to before the agent's change is captured, so that
 * its files are captured as plain files instead of an opaque `Subproject commit`. Excluded.
 */
export const NESTED_GIT_NAME = '.crucible-nested-git';

export interface Baseline {
  /**
   * The harness's git directory, outside the workspace: the agent cannot rewrite it, but reads
   * its objects (read-only) through its own `.git`'s alternates.
   */
  gitDir: string;
  /**
   * A second git directory the sandbox never shows, whose alternates reach `gitDir`'s objects.
   * Every object made after the baseline (held-out files, the agent's change, edited trees) is
   * written here, so nothing the agent can read ever holds a held-out test.
   */
  store: string;
  commit: string;
  /** The commit's tree: the change that changes nothing. */
  tree: string;
  /**
   * What the task's setup produced (top-most new paths): the environment, never part of the
   * baseline commit or of any tree graded against it; every test run takes them from the pristine tree.
   */
  setupOutputs: readonly string[];
}

/**
 * Commits `dir` as it stands into a git directory the harness owns. Its index keeps the stat data
 * of exactly these files, which every later copy (made with `cp -a`) shares, so git never
 * re-hashes an unchanged file.
 */
export async function commitBaseline(dir: string, gitDir: string, store: string, setupOutputs: readonly string[] = []): Promise<Baseline> {
  baselinesCommitted += 1;
  const exclude = `${[...RUNTIME_DEBRIS, `${NESTED_GIT_NAME}/`, NESTED_GIT_NAME, ...excludeLines(setupOutputs)].join('\n')}\n`;
  for (const repo of [gitDir, store]) {
    await git({}, ['init', '--quiet', '--bare', '--initial-branch=main', repo]);
    await mkdir(join(repo, 'info'), { recursive: true });
    await writeFile(join(repo, 'info', 'exclude'), exclude);
  }
  const target = { gitDir, workTree: dir };
  await git(target, ['add', '--all']);
  // The repo's own .gitignore outranks info/exclude (a `!node_modules` in it would win): drop them by name too.
  await dropPaths(target, setupOutputs);
  await git(target, ['commit', '--quiet', '--no-verify', '--allow-empty', '-m', 'crucible baseline']);
  const [commit = '', tree = ''] = (await git(target, ['rev-parse', 'HEAD', 'HEAD^{tree}'])).trim().split('\n');
  await mkdir(join(store, 'objects', 'info'), { recursive: true });
  await writeFile(join(store, 'objects', 'info', 'alternates'), `${join(gitDir, 'objects')}\n`);
  return { gitDir, store, commit, tree, setupOutputs };
}

let baselinesCommitted = 0;

/** How many baselines this process has committed: a run builds one per task, not one per attempt. */
export function baselineCommitCount(): number {
  return baselinesCommitted;
}

/**
 * The same baseline for another attempt: its commit, tree, index and objects stay shared (read
 * only: nothing writes to `gitDir` after the commit), and it gets a store of its own, with the
 * same excludes, for the objects it makes (held-out files, the agent's change, edited trees).
 */
export async function forkBaseline(baseline: Baseline, store: string): Promise<Baseline> {
  await git({}, ['init', '--quiet', '--bare', '--initial-branch=main', store]);
  await mkdir(join(store, 'info'), { recursive: true });
  await writeFile(join(store, 'info', 'exclude'), await readFile(join(baseline.gitDir, 'info', 'exclude')));
  await mkdir(join(store, 'objects', 'info'), { recursive: true });
  await writeFile(join(store, 'objects', 'info', 'alternates'), `${join(baseline.gitDir, 'objects')}\n`);
  return { ...baseline, store };
}

/** Removes `paths` (files, or directories with all they hold) from the index of `target`, by their literal names. */
async function dropPaths(target: GitTarget, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  await git(target, ['--literal-pathspecs', 'rm', '-r', '-q', '--cached', '--ignore-unmatch', '--pathspec-from-file=-', '--pathspec-file-nul'], {
    stdin: `${paths.join('\0')}\0`,
  });
}

/**
 * `tree` without anything at the setup outputs' paths, as a new tree in the store: whatever an
 * agent made of them (edited, deleted, replaced by a symlink, un-ignored with its own .gitignore)
 * is no part of its change, and every test run gets them as setup left them, from the pristine tree.
 */
export async function withoutSetupOutputs(baseline: Baseline, tree: string): Promise<string> {
  if (baseline.setupOutputs.length === 0 || tree === baseline.tree) return tree;
  const indexFile = join(baseline.store, `outputs-${process.pid}-${Math.random().toString(36).slice(2)}.index`);
  const target: GitTarget = { gitDir: baseline.store, indexFile };
  try {
    await git(target, ['read-tree', tree]);
    await dropPaths(target, baseline.setupOutputs);
    return (await git(target, ['write-tree'])).trim();
  } finally {
    await rm(indexFile, { force: true });
  }
}

/**
 * Gives a copy of the baseline a `.git` of its own (same commit, objects shared read-only through
 * alternates), so the agent, and tests that ask git, can use git there. Whatever happens to that
 * `.git`, the harness reads only its own `gitDir`.
 */
export async function addWorkspaceRepo(dir: string, baseline: Baseline): Promise<void> {
  const ownGit = join(dir, '.git');
  await git({}, ['init', '--quiet', '--initial-branch=main', dir]);
  await mkdir(join(ownGit, 'objects', 'info'), { recursive: true });
  await writeFile(join(ownGit, 'objects', 'info', 'alternates'), `${join(baseline.gitDir, 'objects')}\n`);
  // The baseline index already holds the stat data of these very files: no re-hashing needed.
  await copyIndex(baseline, join(ownGit, 'index'));
  await git({ cwd: dir }, ['update-ref', 'refs/heads/main', baseline.commit]);
}

/**
 * A copy of the baseline's index, for the harness's own work. It keeps the original's mtime:
 * git re-reads an entry whose file changed within the index's own timestamp ("racy git") only
 * when it can compare against the time the index was really written.
 */
export async function copyIndex(baseline: Baseline, dest: string): Promise<void> {
  const source = join(baseline.gitDir, 'index');
  await copyFile(source, dest);
  const info = await stat(source);
  await utimes(dest, info.atime, info.mtime);
}
