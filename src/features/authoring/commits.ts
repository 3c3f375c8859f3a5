/**
 * The git side of `crucible task new --from-commits A..B`: which repository, which two commits,
 * which paths the range changes, and what its commits say. Read-only on the author's repository:
 * nothing here writes a ref, an object or its index.
 */
import { isAbsolute, resolve } from 'node:path';
import { InputError } from '../../core/errors.js';
import { git, GitError } from '../../infra/workspace/index.js';

export interface CommitRange {
  /** The repository's git directory (absolute). */
  gitDir: string;
  /** The range as the author wrote it, for messages. */
  text: string;
  /** Full ids of the start (the bug) and the end (the fix and its tests). */
  from: string;
  to: string;
}

/** `--repo DIR`'s git directory; a directory that is not in a git repository is bad input. */
export async function gitDirOf(repo: string): Promise<string> {
  const dir = isAbsolute(repo) ? repo : resolve(repo);
  try {
    return (await git({ cwd: dir }, ['rev-parse', '--absolute-git-dir'])).trim();
  } catch (error) {
    if (!(error instanceof GitError) && (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new InputError(`--repo ${repo}: not a git repository (fix: point --repo at the checkout whose commits make the task, or run git init there)`);
  }
}

/**
 * `A..B` (or a single commit `B`, meaning `B^..B`) resolved to two commit ids. An unknown name is
 * bad input naming the flag.
 */
export async function resolveRange(gitDir: string, text: string): Promise<CommitRange> {
  const parts = text.split('..');
  if (parts.length > 2 || parts.some((p) => p === '' || p.startsWith('.'))) {
    throw new InputError(`--from-commits ${text}: expected A..B, two commits (fix: e.g. --from-commits v1.2.0..fix-branch, or one commit C for C^..C)`);
  }
  const [fromName, toName] = parts.length === 2 ? (parts as [string, string]) : [`${parts[0] ?? ''}^`, parts[0] ?? ''];
  const from = await commitId(gitDir, fromName, text);
  const to = await commitId(gitDir, toName, text);
  return { gitDir, text, from, to };
}

async function commitId(gitDir: string, name: string, range: string): Promise<string> {
  try {
    return (await git({ gitDir }, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${name}^{commit}`])).trim();
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    throw new InputError(
      `--from-commits ${range}: ${name} is not a commit of the repository (fix: check the name with git log, and fetch it first if it is on a remote)`,
    );
  }
}

/**
 * Every path the range changes, renames split into a deletion and an addition so each side lands
 * wholly in the tests or in the oracle.
 */
export async function changedPaths(range: CommitRange): Promise<string[]> {
  const out = await git({ gitDir: range.gitDir }, ['diff', '--name-only', '-z', '--no-renames', '--no-ext-diff', range.from, range.to]);
  return out.split('\0').filter((p) => p !== '');
}

/**
 * The unified diff of `paths` from A to B, in the form `git apply` takes (binary files included),
 * whatever the repository's own diff settings say.
 */
export async function diffOf(range: CommitRange, paths: readonly string[]): Promise<string> {
  return git({ gitDir: range.gitDir }, [
    '--literal-pathspecs',
    'diff',
    '--binary',
    '--full-index',
    '--no-renames',
    '--no-ext-diff',
    '--no-textconv',
    '--no-color',
    '--src-prefix=a/',
    '--dst-prefix=b/',
    range.from,
    range.to,
    '--',
    ...paths,
  ]);
}

/** The full messages of the range's commits, oldest first: the raw material of the instruction stub. */
export async function commitMessages(range: CommitRange): Promise<string[]> {
  const out = await git({ gitDir: range.gitDir }, ['log', '--reverse', '--format=%B%x00', `${range.from}..${range.to}`]);
  return out
    .split('\0')
    .map((m) => m.trim())
    .filter((m) => m !== '');
}
