import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { removeTree } from '../workspace/index.js';

/**
 * What a killed run leaves behind, removed when the run resumes (it holds the run's lock then):
 * - temporary files of atomic writes (`<file>.<pid>.tmp`) in the run directory and its attempt
 *   directories, which nothing reads;
 * - the directories of attempts that did not finish (no checkpoint line): their scratch trees
 *   (workspace/, agent-workspace/, pristine/, git stores) can be gigabytes, and they run again
 *   from a clean directory anyway;
 * - staging directories of processes that are gone: a run directory being created
 *   (`runs/.<id>.<pid>.staging`) and a git mirror being cloned (`cache/git/<name>.git.tmp-<pid>-…`).
 *   These sit in directories shared with other runs, so only a dead process's are removed.
 * Returns how many entries were removed.
 */
export async function removeLeftovers(stateDir: string, runDir: string, finished: ReadonlySet<string>): Promise<number> {
  let removed = 0;
  const remove = async (path: string): Promise<void> => {
    await removeTree(path);
    removed++;
  };
  for (const name of await names(runDir)) if (isTemp(name)) await remove(join(runDir, name));
  const attempts = join(runDir, 'attempts');
  for (const id of await names(attempts)) {
    if (!finished.has(id)) {
      await remove(join(attempts, id));
      continue;
    }
    for (const name of await names(join(attempts, id))) if (isTemp(name)) await remove(join(attempts, id, name));
  }
  for (const name of await names(join(stateDir, 'runs'))) {
    const pid = /^\..+\.(\d+)\.staging$/.exec(name)?.[1];
    if (pid !== undefined && !isAlive(Number(pid))) await remove(join(stateDir, 'runs', name));
  }
  const mirrors = join(stateDir, 'cache', 'git');
  for (const name of await names(mirrors)) {
    const pid = /\.tmp-(\d+)-\d+$/.exec(name)?.[1];
    if (pid !== undefined && !isAlive(Number(pid))) await remove(join(mirrors, name));
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

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
