import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { DiffStats, FileChange, FileChangeKind } from '../types/index.js';
import { git, gitToFile, type GitTarget } from '../workspace/git.js';

export interface DiffInput {
  /** The harness's baseline git directory (outside the workspace). */
  gitDir: string;
  workspace: string;
  baseline: string;
  /** Where to write the full patch (binary-safe). */
  patchFile: string;
}

/**
 * Everything the agent changed relative to the baseline commit, whatever it did to the workspace's
 * own `.git`. Uses the harness's index, so the agent's commits, resets and branch switches are
 * invisible to it. Writes `patchFile` and returns per-file statistics.
 */
export async function collectDiff(input: DiffInput): Promise<DiffStats> {
  const target: GitTarget = { gitDir: input.gitDir, workTree: input.workspace };
  await git(target, ['add', '--all']);
  await addFilesHiddenByIgnoreEdits(target, input.baseline);

  const range = ['diff', '--cached', '--find-renames', input.baseline];
  const [nameStatus, numstat] = await Promise.all([
    git(target, [...range, '--name-status', '-z']),
    git(target, [...range, '--numstat', '-z']),
    gitToFile(target, [...range, '--binary', '--full-index'], input.patchFile),
  ]);
  const files = mergeStats(parseNameStatus(nameStatus), parseNumstat(numstat));
  return {
    files,
    filesChanged: files.length,
    added: files.reduce((sum, f) => sum + f.added, 0),
    deleted: files.reduce((sum, f) => sum + f.deleted, 0),
  };
}

/**
 * An agent can hide a new file by adding it to a .gitignore. When any ignore file changed, files
 * that the current rules ignore but the baseline rules would not are added anyway.
 */
async function addFilesHiddenByIgnoreEdits(target: GitTarget, baseline: string): Promise<void> {
  const changed = await git(target, ['diff', '--cached', '--name-only', '-z', baseline]);
  if (!changed.split('\0').some((path) => path === '.gitignore' || path.endsWith('/.gitignore'))) return;

  const ignoredNow = (await git(target, ['ls-files', '--others', '--ignored', '--exclude-standard', '-z'])).split('\0').filter(Boolean);
  if (ignoredNow.length === 0) return;

  // Judge those paths against the baseline's ignore files, written alone into a scratch tree.
  const scratch = await mkdtemp(join(tmpdir(), 'crucible-ignore-'));
  try {
    await git({ cwd: scratch }, ['init', '--quiet']);
    const ignoreFiles = (await git(target, ['ls-tree', '-r', '--name-only', '-z', baseline]))
      .split('\0')
      .filter((path) => path === '.gitignore' || path.endsWith('/.gitignore'));
    for (const path of ignoreFiles) {
      await mkdir(dirname(join(scratch, path)), { recursive: true });
      await writeFile(join(scratch, path), await git(target, ['cat-file', 'blob', `${baseline}:${path}`]));
    }
    const excludes = ['-c', `core.excludesFile=${join(target.gitDir ?? '', 'info', 'exclude')}`];
    const ignoredAtBaseline = new Set(await checkIgnore(scratch, ignoredNow, excludes));
    const hidden = ignoredNow.filter((path) => !ignoredAtBaseline.has(path));
    if (hidden.length > 0) {
      await git(target, ['--literal-pathspecs', 'add', '--force', '--pathspec-from-file=-', '--pathspec-file-nul'], { stdin: `${hidden.join('\0')}\0` });
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Paths (which need not exist) that the ignore files under `repo` would ignore. */
async function checkIgnore(repo: string, paths: string[], config: string[]): Promise<string[]> {
  try {
    // check-ignore exits 1 when nothing is ignored; --no-index judges paths that do not exist here.
    const out = await git({ cwd: repo }, [...config, 'check-ignore', '--no-index', '-z', '--stdin'], { stdin: `${paths.join('\0')}\0` });
    return out.split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

interface NameStatus {
  path: string;
  oldPath?: string;
  kind: FileChangeKind;
}

function parseNameStatus(out: string): NameStatus[] {
  const fields = out.split('\0');
  const result: NameStatus[] = [];
  for (let i = 0; i < fields.length && fields[i]; ) {
    const status = fields[i++] ?? '';
    const letter = status[0];
    if (letter === 'R' || letter === 'C') {
      const oldPath = fields[i++] ?? '';
      const path = fields[i++] ?? '';
      result.push(letter === 'R' ? { path, oldPath, kind: 'renamed' } : { path, kind: 'added' });
    } else {
      const path = fields[i++] ?? '';
      result.push({ path, kind: letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : 'modified' });
    }
  }
  return result;
}

interface Numstat {
  added: number;
  deleted: number;
  binary: boolean;
}

/** `-z --numstat` puts renames as "added\tdeleted\t\0old\0new\0". */
function parseNumstat(out: string): Map<string, Numstat> {
  const fields = out.split('\0');
  const stats = new Map<string, Numstat>();
  for (let i = 0; i < fields.length && fields[i]; ) {
    const [added = '', deleted = '', path = ''] = (fields[i++] ?? '').split('\t');
    let key = path;
    if (path === '') {
      i++; // old path
      key = fields[i++] ?? '';
    }
    const binary = added === '-' && deleted === '-';
    stats.set(key, { added: binary ? 0 : Number(added), deleted: binary ? 0 : Number(deleted), binary });
  }
  return stats;
}

function mergeStats(changes: NameStatus[], numstat: Map<string, Numstat>): FileChange[] {
  return changes.map((change) => {
    const stat = numstat.get(change.path) ?? { added: 0, deleted: 0, binary: false };
    return { ...change, ...stat };
  });
}
