import { tasksToSeparate } from '../domain/stats/index.js';

/** A path as a POSIX shell takes it: bare when it holds only safe characters, else single-quoted. */
export function shellPath(path: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/**
 * The "Next:" block after init or mine: the commands (each runnable as printed from where the user
 * stands; `#` lines are what to do by hand), then how many tasks a comparison of two agents needs
 * against how many the set has. `repo` is the repository as the user named it (shellPath'd).
 */
export function nextSteps(steps: readonly string[], context: { tasks: number; repo: string }): string {
  const needed = tasksToSeparate();
  const have = `${context.tasks} task${context.tasks === 1 ? '' : 's'}`;
  const more =
    context.tasks >= needed
      ? `comparing two agents: ${have} here; a 95% paired test separates them only once at least ${needed} tasks give them different results, so more tasks make a difference easier to show`
      : `comparing two agents needs at least ${needed} tasks on which their results differ (this set has ${have}); to make more from this repository's history: \`crucible mine ${context.repo}\``;
  return `Next:\n${steps.map((s) => `  ${s}`).join('\n')}\n${more}\n`;
}
