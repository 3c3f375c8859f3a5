import { describe, expect, it } from 'vitest';
import { meanOverTasks, passAtK, passHatK } from '../../src/domain/stats/index.js';

describe('passAtK', () => {
  it('equals the plain pass rate at k = 1', () => {
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 12);
  });

  it('matches 1 − C(n−c,k)/C(n,k) on a small case', () => {
    // 1 − C(7,5)/C(10,5) = 1 − 21/252
    expect(passAtK(10, 3, 5)).toBeCloseTo(1 - 21 / 252, 12);
  });

  it('is 1 when fewer than k attempts failed, and 0 when none passed', () => {
    expect(passAtK(10, 8, 3)).toBe(1);
    expect(passAtK(10, 0, 3)).toBe(0);
    expect(passAtK(3, 3, 3)).toBe(1);
  });

  it('stays accurate where binomial coefficients would overflow', () => {
    // 1 − C(990,100)/C(1000,100), computed exactly with Python integers
    expect(passAtK(1000, 10, 100)).toBeCloseTo(0.653072285207994, 10);
    const large = passAtK(100_000, 1, 50_000);
    expect(large).toBeCloseTo(0.5, 10);
  });

  it('refuses k > n and k < 1', () => {
    expect(() => passAtK(3, 1, 4)).toThrow(RangeError);
    expect(() => passAtK(3, 1, 0)).toThrow(RangeError);
    expect(() => passAtK(3, 4, 1)).toThrow(RangeError);
  });
});

describe('passHatK', () => {
  it('equals the plain pass rate at k = 1', () => {
    expect(passHatK(10, 3, 1)).toBeCloseTo(0.3, 12);
  });

  it('matches C(c,k)/C(n,k)', () => {
    expect(passHatK(10, 3, 2)).toBeCloseTo(3 / 45, 12);
    // C(30,7)/C(50,7), computed exactly with Python integers
    expect(passHatK(50, 30, 7)).toBeCloseTo(0.020381561084613812, 12);
  });

  it('is 0 when fewer than k passed and 1 when all passed', () => {
    expect(passHatK(5, 2, 3)).toBe(0);
    expect(passHatK(5, 5, 5)).toBe(1);
  });

  it('never exceeds pass@k', () => {
    for (let c = 0; c <= 6; c++) {
      for (let k = 1; k <= 6; k++) expect(passHatK(6, c, k)).toBeLessThanOrEqual(passAtK(6, c, k));
    }
  });

  it('refuses k > n', () => {
    expect(() => passHatK(2, 2, 3)).toThrow(RangeError);
  });
});

describe('meanOverTasks', () => {
  it('weights every task equally', () => {
    const tasks = [
      { successes: 3, n: 3 },
      { successes: 0, n: 3 },
      { successes: 1, n: 3 },
    ];
    expect(meanOverTasks(tasks, 1, passAtK)).toBeCloseTo((1 + 0 + 1 / 3) / 3, 12);
    expect(meanOverTasks(tasks, 2, passAtK)).toBeCloseTo((1 + 0 + 2 / 3) / 3, 12);
    expect(meanOverTasks(tasks, 3, passHatK)).toBeCloseTo(1 / 3, 12);
  });

  it('is null without tasks and throws when a task has fewer than k attempts', () => {
    expect(meanOverTasks([], 1, passAtK)).toBeNull();
    expect(() => meanOverTasks([{ successes: 1, n: 1 }], 2, passAtK)).toThrow(RangeError);
  });
});
