/**
 * The user's checkout, read only: its root, its git directory and the commits `--base` and
 * `--head` name. Nothing here writes to the checkout or its `.git` (no index refresh, no fetch).
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError } from '../../core/errors.js';
import { git, gitBytes, GitError } from '../../infra/workspace/index.js';

export interface Checkout {
  root: string;
  /** Absolute: a worktree's own git directory works too (its objects are reached through commondir). */
  gitDir: string;
}

export async function openCheckout(dir: string): Promise<Checkout> {
  const abs = resolve(dir);
  if (!existsSync(abs) || !statSync(abs).isDirectory())
    throw new InputError(`${dir}: no such directory (fix: run crucible ci inside a git checkout, or pass --repo DIR)`);
  try {
    // --no-optional-locks: even reading must not refresh the checkout's index.
    const [root = '', gitDir = ''] = (await git({ cwd: abs }, ['--no-optional-locks', 'rev-parse', '--show-toplevel', '--absolute-git-dir']))
      .trim()
      .split('\n');
    if (root === '') throw new InputError(`${dir}: a bare repository has no checkout to evaluate (fix: run crucible ci in a working tree)`);
    return { root, gitDir };
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`${dir}: not a git checkout (fix: run crucible ci inside a git repository, or pass --repo DIR)`);
  }
}

/** The commit a ref names, or an InputError naming the ref. */
export async function resolveCommit(checkout: Checkout, ref: string, flag: string): Promise<string> {
  try {
    return (await git({ gitDir: checkout.gitDir }, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`])).trim();
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    const hint = ref === 'HEAD' ? 'make a first commit' : `fetch it first (git fetch origin ${ref}) or check the name`;
    throw new InputError(`${flag} ${ref}: not a commit in ${checkout.root} (fix: ${hint})`);
  }
}

/** A file as committed at `commit`, or undefined when the commit has no such file. */
export async function readAtCommit(checkout: Checkout, commit: string, path: string): Promise<string | undefined> {
  try {
    return (await gitBytes({ gitDir: checkout.gitDir }, ['cat-file', 'blob', `${commit}:${path}`])).toString('utf8');
  } catch (error) {
    if (error instanceof GitError) return undefined;
    throw error;
  }
}
