import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { InputError } from '../../core/errors.js';
import type { RepoSource } from '../../core/types/index.js';
import { extractCommit, git, GitError } from '../../infra/workspace/index.js';
import { materializeNpm } from './npm-source.js';

const execFileAsync = promisify(execFile);

/** Entries never copied from a local repo: its own history, and Crucible's own state. */
const SKIPPED_ENTRIES = new Set(['.git', '.crucible']);

/**
 * Puts the repo's files (no .git) into `dest`, which must exist and be empty.
 * Local directories are copied with `cp -a --reflink=auto`, which clones blocks on filesystems
 * that can and copies elsewhere; hard links are never used, since the agent could then write
 * through them into the source. Git sources come from a shared bare clone via `git archive`,
 * not a worktree, because a worktree's .git file points back into the shared cache. npm sources
 * are unpacked from their verified, cached tarball (npm-source.ts).
 */
export async function materializeRepo(source: RepoSource, dest: string, cacheDir: string): Promise<void> {
  if (source.kind === 'local') return copyTree(source.path, dest);
  if (source.kind === 'npm') return materializeNpm(source.package, dest, cacheDir);
  const mirror = await ensureGitCache(source.url, source.commit, cacheDir);
  await extractCommit(mirror, source.commit, dest);
}

async function copyTree(from: string, dest: string): Promise<void> {
  const entries = (await readdir(from)).filter((name) => !SKIPPED_ENTRIES.has(name));
  if (entries.length === 0) return;
  await execFileAsync('cp', ['-a', '--reflink=auto', '--', ...entries.map((name) => join(from, name)), dest], {
    maxBuffer: 1024 * 1024,
  });
}

/** A git source that cannot be fetched: a defect of the task, named by the field to fix. */
export class RepoSourceError extends InputError {
  constructor(
    readonly field: 'repo.git' | 'repo.commit',
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${field} ${problem} (fix: ${fix})`);
    this.name = 'RepoSourceError';
  }
}

const inFlight = new Map<string, Promise<string>>();

/** Clones `url` once (bare, all refs) and fetches again only when `commit` is not in it yet. */
export function ensureGitCache(url: string, commit: string, cacheDir: string): Promise<string> {
  const key = `${url}\0${commit}`;
  let pending = inFlight.get(key);
  if (!pending) {
    pending = cloneOrFetch(url, commit, cacheDir).finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  return pending;
}

async function cloneOrFetch(url: string, commit: string, cacheDir: string): Promise<string> {
  const name = `${basename(url)
    .replace(/\.git$/, '')
    .replace(/[^A-Za-z0-9._-]/g, '_')}-${createHash('sha256').update(url).digest('hex').slice(0, 12)}.git`;
  const mirror = join(cacheDir, 'git', name);
  if (!existsSync(mirror)) {
    await mkdir(join(cacheDir, 'git'), { recursive: true });
    // Clone beside the final path and rename, so a concurrent process never sees half a clone.
    const staging = `${mirror}.tmp-${process.pid}-${Date.now()}`;
    try {
      await git({}, ['clone', '--quiet', '--mirror', '--', url, staging]);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw new RepoSourceError('repo.git', `${url}: cannot clone (${errorTail(error)})`, 'check the URL and that git can reach it');
    }
    try {
      await rename(staging, mirror);
    } catch {
      await rm(staging, { recursive: true, force: true }); // another process won the race
    }
  }
  if (!(await hasCommit(mirror, commit))) {
    await git({ gitDir: mirror }, ['fetch', '--quiet', '--prune', 'origin']).catch(() => undefined);
    if (!(await hasCommit(mirror, commit))) {
      await git({ gitDir: mirror }, ['fetch', '--quiet', 'origin', commit]).catch(() => undefined);
    }
    if (!(await hasCommit(mirror, commit))) {
      throw new RepoSourceError('repo.commit', `${commit}: not found in ${url}`, 'use a commit, tag or branch that exists there');
    }
  }
  return mirror;
}

async function hasCommit(gitDir: string, commit: string): Promise<boolean> {
  try {
    await git({ gitDir }, ['rev-parse', '--verify', '--quiet', `${commit}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

function errorTail(error: unknown): string {
  return error instanceof GitError ? (error.stderr.trim().split('\n').pop() ?? 'git failed') : String(error);
}
