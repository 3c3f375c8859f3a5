import type { RepoSource, Task } from '../types/index.js';

/** A stable key for grouping results by repo (the repo profile, the history's repo column). */
export function repoKey(source: RepoSource): string {
  return source.kind === 'local' ? source.path : `${source.url}@${source.commit}`;
}

/** The key a task's attempts are grouped by. */
export function taskRepoKey(task: Task): string {
  return repoKey(task.repo);
}

/** Task id → repo key, the map the run statistics group repo profiles by. */
export function taskRepoKeys(tasks: readonly Task[]): Map<string, string> {
  return new Map(tasks.map((t) => [t.id, taskRepoKey(t)]));
}
