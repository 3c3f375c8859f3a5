import { describe, expect, it } from 'vitest';
import { pairedComparison, type TaskOutcome } from '../../src/domain/stats/index.js';

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

  it('is exact beyond 16 tasks when the rates share a grid, matching brute-force enumeration', () => {
    // Mixed trial counts (harness errors leave n from 1 to 4), grid 1/12; the reference enumerates
    // all 2^18 sign assignments here in the test.
    const counts: Array<[[number, number], [number, number]]> = [];
    for (let t = 0; t < 18; t++) {
      const nA = 1 + ((t * 7) % 4);
      const nB = 1 + ((t * 5 + 2) % 4);
      counts.push([
        [(t * 3 + 1) % (nA + 1), nA],
        [(t * 2) % (nB + 1), nB],
      ]);
    }
    const r = pairedComparison(outcomes(counts.map(([x]) => x)), outcomes(counts.map(([, y]) => y)), { newcombeFloor: false });
    expect(r.method).toBe('exact sign-flip');
    const d = counts.map(([[sa, na], [sb, nb]]) => sa / na - sb / nb);
    const bruteP = (delta: number): number => {
      const observed = Math.abs(d.reduce((s, x) => s + x - delta, 0)) - 1e-9;
      let extreme = 0;
      for (let mask = 0; mask < 2 ** d.length; mask++) {
        let s = 0;
        for (let i = 0; i < d.length; i++) s += (mask & (1 << i) ? -1 : 1) * ((d[i] as number) - delta);
        if (Math.abs(s) >= observed) extreme++;
      }
      return extreme / 2 ** d.length;
    };
    expect(r.pValue).toBeCloseTo(bruteP(0), 12);
    // The interval's ends are where the brute-force test starts rejecting.
    const alpha = 0.05;
    expect(bruteP((r.low as number) + 1e-6)).toBeGreaterThan(alpha);
    expect(bruteP((r.low as number) - 1e-6)).toBeLessThanOrEqual(alpha);
    expect(bruteP((r.high as number) - 1e-6)).toBeGreaterThan(alpha);
    expect(bruteP((r.high as number) + 1e-6)).toBeLessThanOrEqual(alpha);
  });

  it('gives the exact p-value on 50 tasks × 4 trials, where 2^50 assignments cannot be enumerated', () => {
    const r = pairedComparison(always(50, 4), never(50, 4), { newcombeFloor: false });
    expect(r.method).toBe('exact sign-flip');
    expect(r.pValue).toBe(2 / 2 ** 50);
    const same = pairedComparison(always(50, 4), always(50, 4));
    expect(same).toMatchObject({ method: 'exact sign-flip', pValue: 1, verdict: 'not separated' });
  });

  it('falls back to Monte Carlo beyond 16 tasks when the trial counts share no small grid', () => {
    const primes = [101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173, 179, 181];
    const a = outcomes(primes.map((n) => [n, n] as [number, number]));
    const b = outcomes(primes.map((n) => [0, n] as [number, number]));
    expect(pairedComparison(a, b).method).toBe('monte-carlo sign-flip');
    expect(pairedComparison(a.slice(0, 16), b.slice(0, 16)).method).toBe('exact sign-flip');
  });

  it('rejects a task listed twice for one agent', () => {
    const a = [...always(2, 1), { taskId: 't0', successes: 0, n: 1 }];
    expect(() => pairedComparison(a, never(2, 1))).toThrow(/twice/);
  });
});
