/**
 * Fetching a registry dataset's tasks with git: for each repository, its pinned commit alone (a
 * shallow fetch of exactly that id, files left to be fetched as they are extracted), checked to be
 * that commit, and each task's directory extracted by `git archive` into a directory of its own.
 *
 * The repositories are untrusted. git runs with the harness's clean environment (no user or system
 * config, hooks off, workspace/git.ts) plus: only the https, ssh, git and file transports (no `ext::`
 * helper that would run a command), no submodules, pathspecs taken literally. A task directory that
 * is a symlink, or lies under one, is refused; what is inside it is the Harbor importer's to check.
 */
import { lstat, mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../../core/errors.js';
import { extractCommit, git, GitError } from '../../infra/workspace/index.js';
import type { RegistryTask } from './dataset-registry.js';

/** The `-c` settings of every git call on a dataset's repositories. */
export const DATASET_GIT_ARGS: readonly string[] = [
  '-c',
  'protocol.allow=never',
  '-c',
  'protocol.https.allow=always',
  '-c',
  'protocol.ssh.allow=always',
  '-c',
  'protocol.git.allow=always',
  '-c',
  'protocol.file.allow=always',
  '-c',
  'submodule.recurse=false',
  '-c',
  'fetch.recurseSubmodules=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  // Nothing waits on a person or on a stalled server: ssh never asks, a transfer that stalls for a minute fails.
  '-c',
  'core.sshCommand=ssh -o BatchMode=yes',
  '-c',
  'http.lowSpeedLimit=1',
  '-c',
  'http.lowSpeedTime=60',
];

/** A task with the commit it is fetched at: the registry's pin, or the remote's HEAD when it has none. */
export interface PinnedTask extends RegistryTask {
  commit: string;
  /** True when the registry named no commit and the remote's HEAD was taken. */
  unpinned: boolean;
}

/** One bare repository per git URL under `workDir`, with `origin` set and ready for partial fetches. */
async function repoFor(url: string, workDir: string, repos: Map<string, string>): Promise<string> {
  const known = repos.get(url);
  if (known !== undefined) return known;
  const gitDir = join(workDir, `repo-${repos.size}.git`);
  repos.set(url, gitDir);
  await git({}, ['init', '--quiet', '--bare', gitDir]);
  // A promisor remote: the fetch brings the commit and its trees, and `git archive` fetches the files when it reads them.
  for (const [key, value] of [
    ['remote.origin.url', url],
    ['remote.origin.promisor', 'true'],
    ['remote.origin.partialclonefilter', 'blob:none'],
    ['extensions.partialClone', 'origin'],
  ] as const)
    await git({ gitDir }, ['config', key, value]);
  return gitDir;
}

/**
 * Each task with a commit: the registry's, or for an unpinned one its remote's HEAD (`git ls-remote`).
 * With `probe: 'all'` every repository is first asked whether it is a git repository at all (one
 * clear error before anything is fetched); with 'unpinned' only those whose HEAD is needed are.
 */
export async function pinTasks(tasks: readonly RegistryTask[], workDir: string, probe: 'all' | 'unpinned'): Promise<PinnedTask[]> {
  const repos = new Map<string, string>();
  const heads = new Map<string, string>();
  const pinned: PinnedTask[] = [];
  for (const task of tasks) {
    let head = heads.get(task.gitUrl);
    if (head === undefined && (probe === 'all' || task.commit === undefined)) {
      const gitDir = await repoFor(task.gitUrl, workDir, repos);
      const listing = await git({ gitDir }, [...DATASET_GIT_ARGS, 'ls-remote', 'origin', 'HEAD']).catch((error: unknown) => {
        throw new InputError(
          `${task.where}.git_url: ${task.gitUrl} is not a git repository git can read (${gitTail(error)}) (fix: the URL of the repository that holds ${task.path})`,
        );
      });
      head = /^([0-9a-f]{40}|[0-9a-f]{64})\tHEAD$/m.exec(listing)?.[1] ?? '';
      heads.set(task.gitUrl, head);
    }
    if (task.commit !== undefined) pinned.push({ ...task, commit: task.commit, unpinned: false });
    else if (head !== undefined && head !== '') pinned.push({ ...task, commit: head, unpinned: true });
    else throw new InputError(`${task.where}.git_commit_id: none given, and ${task.gitUrl} has no HEAD (fix: pin the task's commit)`);
  }
  return pinned;
}

/**
 * Fetches each task's commit and extracts its directory into `<workDir>/tasks/<dirName>`; returns
 * the task directories in the order given. `dirNames` are the caller's safe names, one per task.
 */
export async function fetchTaskDirs(tasks: readonly PinnedTask[], dirNames: readonly string[], workDir: string): Promise<string[]> {
  const repos = new Map<string, string>();
  const fetched = new Set<string>();
  const out = join(workDir, 'tasks');
  await mkdir(out, { recursive: true });
  const dirs: string[] = [];
  for (const [i, task] of tasks.entries()) {
    const gitDir = await repoFor(task.gitUrl, join(workDir, 'fetch'), repos);
    const key = `${task.gitUrl}\0${task.commit}`;
    if (!fetched.has(key)) {
      await fetchCommit(gitDir, task);
      fetched.add(key);
    }
    const tree = join(workDir, `tree-${i}`);
    await mkdir(tree);
    const paths = task.path === '.' ? undefined : [task.path];
    await extractCommit(gitDir, task.commit, tree, { ...(paths ? { paths } : {}), gitArgs: DATASET_GIT_ARGS }).catch((error: unknown) => {
      throw new InputError(
        `${task.where}.path: ${task.path} is not in ${task.gitUrl} at ${task.commit} (${gitTail(error)}) (fix: the task's directory at that commit)`,
      );
    });
    await checkTaskDir(tree, task);
    const dest = join(out, dirNames[i] as string);
    await rename(task.path === '.' ? tree : join(tree, ...task.path.split('/')), dest);
    dirs.push(dest);
  }
  return dirs;
}

async function fetchCommit(gitDir: string, task: PinnedTask): Promise<void> {
  try {
    await git({ gitDir }, [...DATASET_GIT_ARGS, 'fetch', '--quiet', '--no-tags', '--depth=1', '--filter=blob:none', 'origin', task.commit]);
  } catch (error) {
    throw new InputError(
      `${task.where}.git_commit_id: ${task.commit} cannot be fetched from ${task.gitUrl} (${gitTail(error)}) (fix: a commit that exists there, in full)`,
    );
  }
  // What arrived must be the commit asked for, not whatever the server chose to send.
  const got = await git({ gitDir }, ['rev-parse', '--verify', '--quiet', `${task.commit}^{commit}`]).catch(() => '');
  if (got.trim() !== task.commit)
    throw new InputError(`${task.where}.git_commit_id: ${task.gitUrl} did not send commit ${task.commit} (fix: a commit that exists there, in full)`);
}

/** The task's directory exists, is a directory, and neither it nor a directory above it (inside the tree) is a symlink. */
async function checkTaskDir(tree: string, task: PinnedTask): Promise<void> {
  let current = tree;
  for (const part of task.path === '.' ? [] : task.path.split('/')) {
    current = join(current, part);
    const stat = await lstat(current).catch(() => undefined);
    if (stat?.isSymbolicLink())
      throw new InputError(
        `${task.where}.path: ${task.path} passes through a symlink at ${task.commit}, which is never followed (fix: the task's real directory)`,
      );
    if (stat === undefined || !stat.isDirectory())
      throw new InputError(
        `${task.where}.path: ${task.path} is not a directory in ${task.gitUrl} at ${task.commit} (fix: the task's directory at that commit)`,
      );
  }
}

/** What git said went wrong, in one line. */
export function gitTail(error: unknown): string {
  const text = error instanceof GitError ? error.stderr : error instanceof Error ? error.message : String(error);
  const lines = text
    .trim()
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  // git's first fatal line says what failed; what follows it is advice ("…and the repository exists.").
  const fatal = lines.find((l) => /^(fatal|error):/.test(l));
  return (fatal ?? lines.pop() ?? 'git failed').replace(/^(fatal|error):\s*/, '');
}
