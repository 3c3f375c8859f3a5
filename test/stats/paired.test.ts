import { describe, expect, it } from 'vitest';
import { pairedComparison, type TaskOutcome } from '../../src/stats/index.js';

const outcomes = (rates: Array<[successes: number, n: number]>, prefix = 't'): TaskOutcome[] =>
  rates.map(([successes, n], i) => ({ taskId: `${prefix}${i}`, successes, n }));

const always = (tasks: number, trials: number): TaskOutcome[] => outcomes(Array.from({ length: tasks }, () => [trials, trials] as [number, number]));
const never = (tasks: number, trials: number): TaskOutcome[] => outcomes(Array.from({ length: tasks }, () => [0, trials] as [number, number]));

describe('pairedComparison', () => {
  it('separates oracle from nop on 6 tasks × 3 trials', () => {
    const r = pairedComparison(always(6, 3), never(6, 3));
    expect(r.verdict).toBe('A better');
    expect(r.diff).toBe(1);
    expect(r.tasks).toBe(6);
    expect(r.method).toBe('exact sign-flip');
    // Only the two all-same-sign assignments out of 2^6 are as extreme.
    expect(r.pValue).toBeCloseTo(2 / 64, 12);
    expect(r.low).toBeGreaterThan(0);
    expect(r.note).toBeUndefined();
  });

  it('floors a zero-width interval with Newcombe on pooled counts unless told not to', () => {
    const floored = pairedComparison(always(6, 3), never(6, 3));
    expect(floored).toMatchObject({ verdict: 'A better', floor: 'newcombe', high: 1 });
    expect(floored.low).toBeLessThan(0.9);
    const raw = pairedComparison(always(6, 3), never(6, 3), { newcombeFloor: false });
    expect(raw.floor).toBeUndefined();
    expect(raw.low).toBeCloseTo(1, 6);
  });

  it('names B when B is the better agent', () => {
    expect(pairedComparison(never(6, 3), always(6, 3)).verdict).toBe('B better');
  });

  it('does not separate two identical agents', () => {
    const same = outcomes([
      [3, 3],
      [1, 3],
      [0, 3],
      [2, 3],
      [3, 3],
      [0, 3],
    ]);
    const r = pairedComparison(same, same);
    expect(r.verdict).toBe('not separated');
    expect(r.diff).toBe(0);
    expect(r.pValue).toBe(1);
    expect(r.low).toBeLessThanOrEqual(0);
    expect(r.high).toBeGreaterThanOrEqual(0);
  });

  it('cannot separate on 5 tasks even when A wins every one, and says why', () => {
    const r = pairedComparison(always(5, 3), never(5, 3));
    expect(r.verdict).toBe('not separated');
    expect(r.pValue).toBeCloseTo(2 / 32, 12);
    expect(r.low).toBe(-1);
    expect(r.high).toBe(1);
    expect(r.note).toMatch(/needs at least 6/);
  });

  it('matches a brute-force exact test and its inverted interval on mixed outcomes', () => {
    // Differences d = [1, 2/3, 1/3, 1, 0, 1/3, 2/3, 1, -1/3, 1]; reference p and interval from
    // enumerating all 1024 sign assignments in Python.
    const a = outcomes([
      [3, 3],
      [3, 3],
      [2, 3],
      [3, 3],
      [1, 3],
      [1, 3],
      [2, 3],
      [3, 3],
      [0, 3],
      [3, 3],
    ]);
    const b = outcomes([
      [0, 3],
      [1, 3],
      [1, 3],
      [0, 3],
      [1, 3],
      [0, 3],
      [0, 3],
      [0, 3],
      [1, 3],
      [0, 3],
    ]);
    const r = pairedComparison(a, b);
    expect(r.diff).toBeCloseTo(17 / 30, 12);
    expect(r.pValue).toBeCloseTo(16 / 1024, 12);
    expect(r.verdict).toBe('A better');
    expect(r.low).toBeCloseTo(2 / 9, 6);
    expect(r.high).toBeCloseTo(11 / 12, 6);
  });

  it('keeps verdict and interval consistent: separated exactly when 0 is outside', () => {
    const cases: Array<[TaskOutcome[], TaskOutcome[]]> = [];
    for (let seed = 0; seed < 30; seed++) {
      const a: Array<[number, number]> = [];
      const b: Array<[number, number]> = [];
      for (let t = 0; t < 8; t++) {
        a.push([(seed * 7 + t * 3) % 4, 3]);
        b.push([(seed * 5 + t * 11) % 3, 3]);
      }
      cases.push([outcomes(a), outcomes(b)]);
    }
    for (const [a, b] of cases) {
      const r = pairedComparison(a, b);
      const excludesZero = (r.low ?? 0) > 0 || (r.high ?? 0) < 0;
      expect(excludesZero).toBe(r.verdict !== 'not separated');
      expect(r.low).toBeLessThanOrEqual(r.diff ?? Number.NaN);
      expect(r.high).toBeGreaterThanOrEqual(r.diff ?? Number.NaN);
    }
  });

  it('uses only tasks both agents were scored on', () => {
    const a = [...always(6, 3), { taskId: 'only-a', successes: 0, n: 3 }, { taskId: 'errored-in-b', successes: 0, n: 3 }];
    const b = [...never(6, 3), { taskId: 'only-b', successes: 3, n: 3 }, { taskId: 'errored-in-b', successes: 0, n: 0 }];
    const r = pairedComparison(a, b);
    expect(r.tasks).toBe(6);
    expect(r.diff).toBe(1);
  });

  it('reports no comparison when no task is shared', () => {
    const r = pairedComparison(always(3, 1), outcomes([[1, 1]], 'other'));
    expect(r).toMatchObject({ verdict: 'not separated', diff: null, low: null, high: null, pValue: null, tasks: 0 });
  });

  it('approximates the exact test by Monte Carlo for many tasks, reproducibly', () => {
    const a = outcomes(Array.from({ length: 14 }, (_, i) => [i % 3 === 0 ? 1 : 2, 2] as [number, number]));
    const b = outcomes(Array.from({ length: 14 }, (_, i) => [i % 4 === 0 ? 2 : 1, 2] as [number, number]));
    const exact = pairedComparison(a, b);
    const sampled = pairedComparison(a, b, { exactMaxTasks: 4, seed: 3 });
    expect(sampled.method).toBe('monte-carlo sign-flip');
    expect(sampled.pValue).toBeCloseTo(exact.pValue ?? Number.NaN, 2);
    expect(sampled.verdict).toBe(exact.verdict);
    expect(pairedComparison(a, b, { exactMaxTasks: 4, seed: 3 })).toEqual(sampled);
  });

  it('rejects a task listed twice for one agent', () => {
    const a = [...always(2, 1), { taskId: 't0', successes: 0, n: 1 }];
    expect(() => pairedComparison(a, never(2, 1))).toThrow(/twice/);
  });
});
