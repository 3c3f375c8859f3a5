import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../../core/errors.js';
import { extractCommit, GIT_ENV } from '../../infra/workspace/index.js';

/** One file of a pack before it is zipped. */
export interface PackFile {
  type: 'file' | 'exec' | 'symlink';
  /** File content, or a symlink's target as UTF-8. */
  data: Buffer;
}

/** Entries a local repo's copy never gets (src/domain/tasks/repo-source.ts skips the same two). */
const SKIPPED_REPO_ENTRIES = new Set(['.git', '.crucible']);

/**
 * Adds every file under `dir` to `out` under `prefix`. Regular files keep only their executable
 * bit; symlinks are kept as links (their targets are checked later, against the whole pack);
 * anything else (a socket, a device, a FIFO) cannot be packed. Empty directories are not kept.
 */
export function collectDir(dir: string, prefix: string, out: Map<string, PackFile>, options: { repo: boolean }): void {
  const walk = (abs: string, rel: string, top: boolean): void => {
    for (const name of readdirSync(abs).sort()) {
      if (top && options.repo && SKIPPED_REPO_ENTRIES.has(name)) continue;
      const path = join(abs, name);
      const packPath = rel === '' ? `${prefix}/${name}` : `${prefix}/${rel}/${name}`;
      const stat = lstatSync(path);
      if (stat.isDirectory()) walk(path, rel === '' ? name : `${rel}/${name}`, false);
      else if (stat.isSymbolicLink()) out.set(packPath, { type: 'symlink', data: Buffer.from(readlinkSync(path), 'utf8') });
      else if (stat.isFile()) out.set(packPath, { type: stat.mode & 0o111 ? 'exec' : 'file', data: readFileSync(path) });
      else
        throw new InputError(
          `${path}: not a regular file, directory or symlink (a device, FIFO or socket cannot be packed) (fix: remove it from the directory)`,
        );
    }
  };
  walk(dir, '', true);
}

/**
 * A local git repository's files at `commit`, as `crucible run` would check them out: extracted
 * with `git archive` into a temp directory and collected from there. Returns the full commit id.
 */
export async function collectGitCommit(
  repoDir: string,
  commit: string,
  prefixFor: (sha: string) => string,
  out: Map<string, PackFile>,
  field: string,
): Promise<string> {
  const run = (args: string[]): string => {
    try {
      return execFileSync('git', ['-C', repoDir, ...args], { env: { ...process.env, ...GIT_ENV }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
    } catch {
      throw new InputError(`${field}: ${repoDir} has no commit ${commit} (or is not a git repository) (fix: point repo.git at a local clone that has it)`);
    }
  };
  const gitDir = run(['rev-parse', '--absolute-git-dir']);
  const sha = run(['rev-parse', '--verify', `${commit}^{commit}`]);
  const temp = mkdtempSync(join(tmpdir(), 'crucible-pack-git-'));
  try {
    await extractCommit(gitDir, sha, temp);
    collectDir(temp, prefixFor(sha), out, { repo: false });
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return sha;
}
