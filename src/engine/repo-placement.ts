import { isAbsolute, join, relative, resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import type { TaskWhere } from '../domain/tasks/index.js';
import type { Task } from '../core/types/index.js';

/**
 * A local repo is copied whole for every attempt. One that holds the state directory (anywhere but
 * its own top-level `.crucible`, which the copy skips) would copy the runs into themselves, each
 * copy holding the last, until the disk is full; a repo that is the filesystem root copies /proc
 * and every mount. Either is one line (exit 2) naming the task, before anything is written.
 */
export function checkRepoPlacement(tasks: readonly Task[], stateDir: string, where: (task: Task) => TaskWhere): void {
  const state = resolve(stateDir);
  for (const task of tasks) {
    if (task.repo.kind !== 'local') continue;
    const repo = resolve(task.repo.path);
    const w = where(task);
    if (repo === resolve('/')) {
      throw new InputError(`${w.file}: ${w.prefix}.repo.path: the filesystem root is not a repository (fix: point repo.path at the project's own directory)`);
    }
    if (inside(state, repo) && !inside(state, join(repo, '.crucible'))) {
      throw new InputError(
        `${w.file}: ${w.prefix}.repo.path: ${task.repo.path} holds Crucible's state directory ${state}, which every attempt would copy into itself (fix: keep the state in the repo's top-level .crucible, or pass --out with a directory outside the repo)`,
      );
    }
  }
}

function inside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
