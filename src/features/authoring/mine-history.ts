/**
 * The history side of `crucible mine`: which commits of a repository are candidates for a task
 * (they change both tests and code), and why each other commit it walked is not. Read-only on the
 * repository: git's objects only, never its work tree, index or refs.
 */
import { git } from '../../infra/workspace/index.js';
import { changedPaths, type CommitRange } from './commits.js';
import { splitPaths, type PathSplit } from './split.js';

export interface HistoryOptions {
  /** `git log --since` / `--until` (any date git reads: 2024-01-01, "6 months ago"). */
  since?: string;
  until?: string;
  /** The most candidates to return, newest first (the commits walked stop there). */
  limit?: number;
  /** Only commits that touch these paths (git pathspecs). */
  paths?: readonly string[];
  /** Globs of test files. */
  testGlobs: readonly string[];
  /** Where the walk starts (default HEAD). */
  rev?: string;
}

export interface WalkedCommit {
  sha: string;
  /** The first parent: a merge is taken as the change it brought onto the first-parent line. */
  parent?: string;
  subject: string;
  merge: boolean;
}

export interface Candidate extends WalkedCommit {
  parent: string;
  range: CommitRange;
  split: PathSplit;
}

export interface Skipped extends WalkedCommit {
  reason: string;
}

/** Files that change what a reader sees, never what runs: a commit changing only these and tests has no fix. */
const NOT_CODE =
  /(^|\/)(docs?|documentation)\/|\.(md|markdown|rst|txt|adoc)$|(^|\/)(LICEN[CS]E|AUTHORS|CHANGELOG|CHANGES|NEWS|HISTORY)[^/]*$|(^|\/)\.github\//i;

const FIELD = '\x1f';
const RECORD = '\x1e';

/** The commits the walk considered, newest first: the candidates, and the others with their reason. */
export async function walkHistory(gitDir: string, options: HistoryOptions): Promise<{ candidates: Candidate[]; skipped: Skipped[] }> {
  const args = ['log', '--first-parent', `--format=%H${FIELD}%P${FIELD}%s${RECORD}`];
  if (options.since !== undefined) args.push(`--since=${options.since}`);
  if (options.until !== undefined) args.push(`--until=${options.until}`);
  args.push('--end-of-options', options.rev ?? 'HEAD', '--');
  if (options.paths?.length) args.push(...options.paths);
  const out = await git({ gitDir }, args);
  const candidates: Candidate[] = [];
  const skipped: Skipped[] = [];
  for (const record of out.split(RECORD)) {
    if (options.limit !== undefined && candidates.length >= options.limit) break;
    const [sha, parents, subject] = record.trim().split(FIELD);
    if (!sha) continue;
    const parentList = (parents ?? '').split(' ').filter((p) => p !== '');
    const commit: WalkedCommit = { sha, subject: subject ?? '', merge: parentList.length > 1, ...(parentList[0] ? { parent: parentList[0] } : {}) };
    if (commit.parent === undefined) {
      skipped.push({ ...commit, reason: 'the root commit: no parent to start from' });
      continue;
    }
    const range: CommitRange = { gitDir, text: `${commit.parent}..${sha}`, from: commit.parent, to: sha };
    const split = splitPaths(await changedPaths(range), options.testGlobs);
    const reason = skipReason(split);
    if (reason !== undefined) skipped.push({ ...commit, reason });
    else candidates.push({ ...commit, parent: commit.parent, range, split });
  }
  return { candidates, skipped };
}

function skipReason(split: PathSplit): string | undefined {
  const code = split.source.filter((p) => !NOT_CODE.test(p));
  if (split.tests.length === 0 && code.length === 0) return split.source.length === 0 ? 'changes no files' : 'docs only: no test and no code change';
  if (split.tests.length === 0) return 'changes no test files';
  if (code.length === 0) return split.source.length === 0 ? 'tests only: no fix to make the oracle' : 'tests and docs only: no code change to make the oracle';
  return undefined;
}
