import { statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { attemptsDir, runsDir } from '../domain/run-dir/index.js';
import { removeTree } from '../infra/workspace/index.js';

/**
 * What a killed run leaves behind, removed when the run resumes (it holds the run's lock then):
 * - temporary files of atomic writes (`<file>.<pid>.tmp`) in the run directory and its attempt
 *   directories, which nothing reads;
 * - the directories of attempts that did not finish (no checkpoint line): their scratch trees
 *   (workspace/, agent-workspace/, pristine/, git stores) can be gigabytes, and they run again
 *   from a clean directory anyway;
 * - staging directories of processes that are gone: a run directory being created
 *   (`runs/.<id>.<pid>.staging`) and a git mirror being cloned (`cache/git/<name>.git.tmp-<pid>-…`).
 *   and a distributed attempt's files being fetched (`runs/<any run>/attempts/.<id>.<pid>.incoming`).
 *   These sit in directories shared with other runs, so only a gone process's are removed: its pid
 *   is dead, or it is alive but started after the directory was last written (a reused pid: in a
 *   container every run is pid 1), so it cannot be the process that made it.
 * Returns how many entries were removed.
 */
export async function removeLeftovers(stateDir: string, runDir: string, finished: ReadonlySet<string>): Promise<number> {
  let removed = 0;
  const remove = async (path: string): Promise<void> => {
    await removeTree(path);
    removed++;
  };
  for (const name of await names(runDir)) if (isTemp(name)) await remove(join(runDir, name));
  const attempts = attemptsDir(runDir);
  for (const id of await names(attempts)) {
    if (!finished.has(id)) {
      await remove(join(attempts, id));
      continue;
    }
    for (const name of await names(join(attempts, id))) if (isTemp(name)) await remove(join(attempts, id, name));
  }
  const runs = runsDir(stateDir);
  for (const name of await names(runs)) {
    const pid = /^\..+\.(\d+)\.staging$/.exec(name)?.[1];
    if (pid !== undefined && isStale(join(runs, name), Number(pid))) await remove(join(runs, name));
    if (name.startsWith('.')) continue;
    const attemptsOf = attemptsDir(join(runs, name));
    for (const entry of await names(attemptsOf)) {
      const owner = /^\..+\.(\d+)\.incoming$/.exec(entry)?.[1];
      if (owner !== undefined && isStale(join(attemptsOf, entry), Number(owner))) await remove(join(attemptsOf, entry));
    }
  }
  const mirrors = join(stateDir, 'cache', 'git');
  for (const name of await names(mirrors)) {
    const pid = /\.tmp-(\d+)-\d+$/.exec(name)?.[1];
    if (pid !== undefined && isStale(join(mirrors, name), Number(pid))) await remove(join(mirrors, name));
  }
  return removed;
}

/** `writeFileAtomic`'s temporary names, and the `.tmp` suffix in general. */
function isTemp(name: string): boolean {
  return name.endsWith('.tmp');
}

async function names(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

/** A directory named for process `pid` that no running process can still be writing. */
function isStale(path: string, pid: number): boolean {
  if (!isAlive(pid)) return true;
  const written = mtimeOf(path);
  const started = pid === process.pid ? Date.now() - process.uptime() * 1000 : startOf(pid);
  // A second of slack: file times and the process clock are not the same clock.
  return written !== undefined && started !== undefined && written < started - 1_000;
}

function mtimeOf(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** When a process started, from its /proc entry (Linux); undefined elsewhere. */
function startOf(pid: number): number | undefined {
  try {
    return statSync(`/proc/${pid}`).ctimeMs;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
