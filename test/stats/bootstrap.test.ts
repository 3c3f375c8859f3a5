import { describe, expect, it } from 'vitest';
import { bootstrapClusterMean, clusteredBootstrap } from '../../src/domain/stats/index.js';

describe('clusteredBootstrap', () => {
  const clusters = [
    { successes: 3, n: 3 },
    { successes: 2, n: 3 },
    { successes: 0, n: 3 },
    { successes: 1, n: 3 },
    { successes: 3, n: 3 },
    { successes: 0, n: 3 },
  ];

  it('is reproducible from its seed', () => {
    const a = clusteredBootstrap(clusters, { seed: 11 });
    const b = clusteredBootstrap(clusters, { seed: 11 });
    expect(a).toEqual(b);
  });

  it('reports the task-weighted rate, the attempts and the tasks behind it', () => {
    const r = clusteredBootstrap(clusters, { seed: 1 });
    expect(r?.rate).toBeCloseTo(9 / 18, 12);
    expect(r?.n).toBe(18);
    expect(r?.clusters).toBe(6);
    expect(r?.low).toBeLessThan(r?.rate ?? Number.NaN);
    expect(r?.high).toBeGreaterThan(r?.rate ?? Number.NaN);
    expect(r?.low).toBeGreaterThanOrEqual(0);
    expect(r?.high).toBeLessThanOrEqual(1);
  });

  it('weights tasks, not attempts, so a task with many scored attempts does not dominate', () => {
    const r = clusteredBootstrap(
      [
        { successes: 1, n: 1 },
        { successes: 0, n: 9 },
      ],
      { seed: 1 },
    );
    expect(r?.rate).toBeCloseTo(0.5, 12);
    expect(r?.n).toBe(10);
  });

  it('leaves out tasks whose every attempt was a harness error', () => {
    const r = clusteredBootstrap(
      [
        { successes: 2, n: 2 },
        { successes: 0, n: 0 },
      ],
      { seed: 1 },
    );
    expect(r).toEqual({ rate: 1, low: 1, high: 1, n: 2, clusters: 1 });
  });

  it('returns null when nothing was scored', () => {
    expect(clusteredBootstrap([], { seed: 1 })).toBeNull();
    expect(clusteredBootstrap([{ successes: 0, n: 0 }], { seed: 1 })).toBeNull();
  });

  it('is wider than an attempt-level interval would be when trials of a task agree', () => {
    // 10 tasks, 10 trials each, every task all-pass or all-fail: only 10 independent units.
    const all = Array.from({ length: 10 }, (_, i) => ({ successes: i % 2 === 0 ? 10 : 0, n: 10 }));
    const r = clusteredBootstrap(all, { seed: 3 });
    // sd of the mean over 10 clusters ≈ 0.5/√10 ≈ 0.158, so the interval spans roughly ±0.3.
    expect((r?.high ?? 0) - (r?.low ?? 0)).toBeGreaterThan(0.5);
  });

  it('agrees with the normal approximation when there are many tasks', () => {
    const many = Array.from({ length: 400 }, (_, i) => ({ successes: i % 2, n: 1 }));
    const r = clusteredBootstrap(many, { seed: 5, iterations: 20_000 });
    const se = 0.5 / Math.sqrt(400);
    expect(r?.low).toBeCloseTo(0.5 - 1.96 * se, 2);
    expect(r?.high).toBeCloseTo(0.5 + 1.96 * se, 2);
  });

  it('narrows at a lower confidence level', () => {
    const wide = clusteredBootstrap(clusters, { seed: 9, confidence: 0.99 });
    const narrow = clusteredBootstrap(clusters, { seed: 9, confidence: 0.8 });
    expect((narrow?.high ?? 0) - (narrow?.low ?? 0)).toBeLessThan((wide?.high ?? 0) - (wide?.low ?? 0));
  });

  it('rejects impossible counts and options', () => {
    expect(() => clusteredBootstrap([{ successes: 4, n: 3 }], { seed: 1 })).toThrow(RangeError);
    expect(() => clusteredBootstrap(clusters, { seed: 1, iterations: 0 })).toThrow(RangeError);
    expect(() => clusteredBootstrap(clusters, { seed: 1, confidence: 1.2 })).toThrow(RangeError);
  });
});

describe('bootstrapClusterMean', () => {
  it('collapses to the value for a single cluster', () => {
    expect(bootstrapClusterMean([0.25], { seed: 1 })).toEqual({ mean: 0.25, low: 0.25, high: 0.25, clusters: 1 });
  });

  it('keeps the point estimate inside its interval', () => {
    const r = bootstrapClusterMean([0, 0, 0, 1], { seed: 2 });
    expect(r?.mean).toBe(0.25);
    expect(r?.low).toBeLessThanOrEqual(0.25);
    expect(r?.high).toBeGreaterThanOrEqual(0.25);
  });
});
