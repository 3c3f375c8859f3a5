import { assertPositiveInteger, assertSuccesses } from './validate.js';

/**
 * Unbiased pass@k (Chen et al. 2021): the probability that at least one of k attempts drawn
 * without replacement from the n observed passes, 1 − C(n−c, k) / C(n, k). Computed as the
 * product Π_{i=n−c+1}^{n} (1 − k/i), which never forms a binomial coefficient and so cannot
 * overflow or lose precision for large n.
 */
export function passAtK(n: number, c: number, k: number): number {
  checkArgs(n, c, k);
  // The product telescopes to c/n at k = 1; return it exactly so pass@1 equals the pass rate to the bit.
  if (k === 1) return c / n;
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/**
 * Unbiased pass^k: the probability that k attempts drawn without replacement from the n observed
 * all pass, C(c, k) / C(n, k) = Π_{i=0}^{k−1} (c − i) / (n − i). It measures reliability (does
 * the agent solve the task every time), where pass@k measures coverage.
 */
export function passHatK(n: number, c: number, k: number): number {
  checkArgs(n, c, k);
  if (c < k) return 0;
  let allPass = 1;
  for (let i = 0; i < k; i++) allPass *= (c - i) / (n - i);
  return allPass;
}

function checkArgs(n: number, c: number, k: number): void {
  assertSuccesses(c, n);
  assertPositiveInteger('k', k);
  if (k > n) throw new RangeError(`k (${k}) cannot exceed the number of attempts n (${n})`);
}

export interface TaskCounts {
  successes: number;
  n: number;
}

/** Per-task estimator values, for averaging or bootstrapping over tasks. Throws if any n < k. */
export function perTask(tasks: readonly TaskCounts[], k: number, estimator: typeof passAtK): number[] {
  return tasks.map((t) => estimator(t.n, t.successes, k));
}

/**
 * An estimator averaged over tasks, each task weighted equally. Null when there are no tasks.
 * Every task must have n ≥ k; the caller decides which k are estimable rather than having tasks
 * silently dropped here.
 */
export function meanOverTasks(tasks: readonly TaskCounts[], k: number, estimator: typeof passAtK): number | null {
  if (tasks.length === 0) return null;
  const values = perTask(tasks, k, estimator);
  return values.reduce((s, v) => s + v, 0) / values.length;
}
