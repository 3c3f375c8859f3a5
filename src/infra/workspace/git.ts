import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { createWriteStream } from 'node:fs';

/**
 * Git as the harness runs it: on the host, with no user or system config (no hooks, filters,
 * excludes or signing from the machine leak in) and a fixed identity, so baselines are reproducible.
 */
export const GIT_ENV: Readonly<Record<string, string>> = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: '/nonexistent',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'crucible',
  GIT_AUTHOR_EMAIL: 'crucible@localhost',
  GIT_COMMITTER_NAME: 'crucible',
  GIT_COMMITTER_EMAIL: 'crucible@localhost',
  GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
  LANG: 'C',
};

const BASE_ARGS = [
  '-c',
  'core.autocrlf=false',
  '-c',
  'core.quotepath=false',
  '-c',
  'commit.gpgsign=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.symlinks=true',
];

export interface GitTarget {
  /** The harness's own git directory, outside the workspace. */
  gitDir?: string;
  workTree?: string;
  cwd?: string;
  /** An index of the harness's own instead of `gitDir/index` (GIT_INDEX_FILE). */
  indexFile?: string;
  /**
   * The argv that puts git where the work tree is mounted (an overlay holder's namespace), in
   * directory `wd`: git resolves its work tree's path itself, so a `/proc/<pid>/root` path would
   * lead it back to the host's empty mount point.
   */
  enter?: (wd: string) => string[];
}

/**
 * A work tree mounted where the host does not see it (an overlay holder's namespace): the host's
 * own reads and writes go through `host` (a `/proc/<pid>/root` path: no-follow helpers only), and
 * git runs in there by `enter`, given the tree's own path.
 */
export interface HeldTree {
  host: string;
  enter: (wd: string) => string[];
}

export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed: ${stderr.trim().split('\n').slice(-3).join(' ')}`);
    this.name = 'GitError';
  }
}

function gitEnv(target: GitTarget): Record<string, string> {
  return target.indexFile ? { ...GIT_ENV, GIT_INDEX_FILE: target.indexFile } : { ...GIT_ENV };
}

function fullArgs(target: GitTarget, args: string[]): string[] {
  const where: string[] = [];
  if (target.gitDir) where.push(`--git-dir=${target.gitDir}`);
  if (target.workTree) where.push(`--work-tree=${target.workTree}`);
  return [...BASE_ARGS, ...where, ...args];
}

/** Git on the host, or entered where the work tree is mounted; stdin is git's to read only when `stdin` is given (else it ends at once). */
function spawnGit(target: GitTarget, args: string[], stdin?: string): ChildProcessByStdio<Writable, Readable, Readable> {
  const cwd = target.cwd ?? target.workTree;
  const stdio: ['pipe', 'pipe', 'pipe'] = ['pipe', 'pipe', 'pipe'];
  const [command, ...rest] =
    target.enter !== undefined && cwd !== undefined ? [...target.enter(cwd), 'git', ...fullArgs(target, args)] : ['git', ...fullArgs(target, args)];
  const child = spawn(command ?? 'git', rest, { ...(target.enter === undefined ? { cwd } : {}), env: gitEnv(target), stdio });
  child.stdin.on('error', () => {});
  child.stdin.end(stdin);
  return child;
}

export async function git(target: GitTarget, args: string[], options: { stdin?: string; maxBuffer?: number } = {}): Promise<string> {
  return (await gitBytes(target, args, options)).toString('utf8');
}

/** git's stdout as bytes: blobs are not text. */
export function gitBytes(target: GitTarget, args: string[], options: { stdin?: string; maxBuffer?: number } = {}): Promise<Buffer> {
  const maxBuffer = options.maxBuffer ?? 256 * 1024 * 1024;
  return new Promise((resolvePromise, reject) => {
    const child = spawnGit(target, args, options.stdin);
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBuffer) chunks.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 8192) stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new GitError(args, stderr));
      if (size > maxBuffer) return reject(new GitError(args, `output larger than ${maxBuffer} bytes`));
      resolvePromise(Buffer.concat(chunks));
    });
    // A git that exits before reading its input (a bad object, no repository) must fail the call, not crash the process with EPIPE.
  });
}

export interface ToFileResult {
  /** Bytes written to the file. */
  bytes: number;
  /** True when git had more to say than `maxBytes`: the file holds the first `maxBytes`. */
  truncated: boolean;
}

/**
 * Streams git's stdout to a file: diffs can be far larger than we want in memory. With
 * `maxBytes`, the file is cut there and git is stopped.
 */
export function gitToFile(target: GitTarget, args: string[], file: string, maxBytes = Number.POSITIVE_INFINITY): Promise<ToFileResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawnGit(target, args);
    const out = createWriteStream(file);
    let stderr = '';
    let bytes = 0;
    let truncated = false;
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 8192) stderr += chunk.toString('utf8');
    });
    child.stdout.on('data', (chunk: Buffer) => {
      if (truncated) return;
      const room = maxBytes - bytes;
      if (chunk.length > room) {
        truncated = true;
        out.write(chunk.subarray(0, room));
        bytes += room;
        child.stdout.destroy();
        child.kill('SIGKILL');
        out.end();
        return;
      }
      bytes += chunk.length;
      out.write(chunk);
    });
    child.stdout.on('end', () => out.end());
    child.on('error', reject);
    // Both must happen: git exits, and the file has everything it wrote.
    const exited = new Promise<number | null>((done) => child.on('close', done));
    const flushed = new Promise<void>((done, fail) => {
      out.on('finish', done);
      out.on('error', fail);
    });
    Promise.all([exited, flushed]).then(
      ([code]) => (code === 0 || truncated ? resolvePromise({ bytes, truncated }) : reject(new GitError(args, stderr))),
      reject,
    );
  });
}

/**
 * Pipes `git archive` into `tar -x`, so a commit lands in a directory without a .git of its own.
 * `paths` limits it to those paths, taken literally (no pathspec magic); `gitArgs` go before
 * `archive` (the `-c` settings a fetch of missing objects must keep).
 */
export function extractCommit(
  gitDir: string,
  commit: string,
  dest: string,
  options: { paths?: readonly string[]; gitArgs?: readonly string[] } = {},
): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const paths = options.paths === undefined ? [] : ['--', ...options.paths];
    const args = fullArgs({ gitDir }, [...(options.gitArgs ?? []), '--literal-pathspecs', 'archive', '--format=tar', commit, ...paths]);
    const archive = spawn('git', args, { env: { ...GIT_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
    const tar = spawn('tar', ['-x', '-C', dest], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    const collect = (chunk: Buffer): void => {
      if (stderr.length < 8192) stderr += chunk.toString('utf8');
    };
    archive.stderr.on('data', collect);
    tar.stderr.on('data', collect);
    archive.stdout.pipe(tar.stdin);
    let pending = 2;
    let failed = false;
    const done = (code: number | null): void => {
      if (code !== 0 && !failed) {
        failed = true;
        reject(new GitError(['archive', commit], stderr));
      }
      if (--pending === 0 && !failed) resolvePromise();
    };
    archive.on('error', reject);
    tar.on('error', reject);
    archive.on('close', done);
    tar.on('close', done);
  });
}
