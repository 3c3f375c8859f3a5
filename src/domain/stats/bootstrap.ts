import { mulberry32, randomIndex } from './prng.js';
import { quantileSorted } from './quantile.js';
import { assertConfidence, assertFinite, assertPositiveInteger, assertSuccesses } from './validate.js';

export interface BootstrapOptions {
  /** Resamples drawn; 10 000 keeps the 2.5th/97.5th percentiles stable to about ±0.005. */
  iterations?: number;
  /** Required: an interval that changes between two prints of the same run is not a result. */
  seed: number;
  confidence?: number;
}

/** A mean over clusters with a percentile-bootstrap interval. */
export interface BootstrapMean {
  mean: number;
  low: number;
  high: number;
  /** Number of clusters (tasks) resampled. */
  clusters: number;
}

/** A pooled pass rate over tasks: `n` attempts in `clusters` tasks. */
export interface PooledInterval {
  rate: number;
  low: number;
  high: number;
  /** Attempts that entered the estimate. */
  n: number;
  /** Tasks (clusters) that entered the estimate. */
  clusters: number;
}

export interface Cluster {
  successes: number;
  n: number;
}

const DEFAULT_ITERATIONS = 10_000;

/**
 * Percentile bootstrap of the mean of one value per cluster, resampling clusters with replacement.
 * Returns null when there are no clusters. With a single cluster the interval collapses to the
 * point (there is nothing to resample); callers that pool one task should use Wilson instead.
 */
export function bootstrapClusterMean(values: readonly number[], opts: BootstrapOptions): BootstrapMean | null {
  assertFinite('values', values);
  const iterations = opts.iterations ?? DEFAULT_ITERATIONS;
  const confidence = opts.confidence ?? 0.95;
  assertPositiveInteger('iterations', iterations);
  assertConfidence(confidence);
  const m = values.length;
  if (m === 0) return null;

  const random = mulberry32(opts.seed);
  const means = new Float64Array(iterations);
  for (let it = 0; it < iterations; it++) {
    let sum = 0;
    for (let j = 0; j < m; j++) sum += values[randomIndex(random, m)] as number;
    means[it] = sum / m;
  }
  means.sort();
  const alpha = 1 - confidence;
  const mean = values.reduce((s, v) => s + v, 0) / m;
  // The point estimate must lie inside its own interval; clamp against percentile noise.
  const low = Math.min(quantileSorted(means, alpha / 2), mean);
  const high = Math.max(quantileSorted(means, 1 - alpha / 2), mean);
  return { mean, low, high, clusters: m };
}

/**
 * Pooled pass rate over tasks with an interval from resampling tasks (clusters) with replacement:
 * repeated trials of one task share its difficulty, so treating every attempt as independent
 * would make the interval too narrow.
 *
 * Estimator: the task-weighted mean of per-task rates, mean_t(successes_t / n_t), not the
 * attempt-weighted Σsuccesses / Σn. Reasons: it is the same quantity as pass@1 averaged over
 * tasks, and the same quantity the paired comparison takes differences of, so the rate, pass@1
 * and the ranking all talk about one number; and harness errors remove attempts unevenly, so an
 * attempt-weighted mean would let the harness's failures reweight the tasks. Each resample
 * recomputes the same estimator, so the interval belongs to the reported point.
 *
 * Clusters with n = 0 (every attempt a harness error) carry no rate and are left out.
 * Returns null when no cluster has n > 0.
 */
export function clusteredBootstrap(clusters: readonly Cluster[], opts: BootstrapOptions): PooledInterval | null {
  const scored = clusters.filter((c) => {
    assertSuccesses(c.successes, c.n);
    return c.n > 0;
  });
  const result = bootstrapClusterMean(
    scored.map((c) => c.successes / c.n),
    opts,
  );
  if (result === null) return null;
  return {
    rate: result.mean,
    low: result.low,
    high: result.high,
    n: scored.reduce((s, c) => s + c.n, 0),
    clusters: result.clusters,
  };
}
