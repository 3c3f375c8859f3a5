import { describe, expect, it } from 'vitest';
import { mulberry32, sequentialSignTest } from '../../src/domain/stats/index.js';

describe('sequentialSignTest', () => {
  it('is the uniform-mixture martingale 2^n · s! f! / (n+1)!', () => {
    expect(sequentialSignTest(8, 0).eValue).toBeCloseTo(256 / 9, 9);
    expect(sequentialSignTest(3, 2).eValue).toBeCloseTo((32 * 6 * 2) / 720, 12);
    expect(sequentialSignTest(0, 0).eValue).toBe(1);
  });

  it('splits into one-sided halves that average to the e-value', () => {
    for (const [w, l] of [
      [5, 1],
      [2, 9],
      [4, 4],
      [30, 12],
    ] as const) {
      const t = sequentialSignTest(w, l);
      expect((t.eForA + t.eForB) / 2).toBeCloseTo(t.eValue, 9);
    }
    expect(sequentialSignTest(6, 0).eForA).toBeGreaterThan(sequentialSignTest(6, 0).eForB);
  });

  it('separates after 8 straight wins at 95% but not after 7, and names the winner', () => {
    expect(sequentialSignTest(7, 0).verdict).toBe('not separated');
    expect(sequentialSignTest(8, 0)).toMatchObject({ verdict: 'A better', threshold: 20 });
    expect(sequentialSignTest(0, 8).verdict).toBe('B better');
    expect(sequentialSignTest(10, 10).verdict).toBe('not separated');
  });

  it('keeps its error rate under the null although it is checked after every pair', () => {
    const random = mulberry32(7);
    const sequences = 1000;
    let rejected = 0;
    let naiveRejected = 0;
    for (let s = 0; s < sequences; s++) {
      let wins = 0;
      let losses = 0;
      let naive = false;
      for (let n = 1; n <= 150; n++) {
        if (random() < 0.5) wins++;
        else losses++;
        // A fixed-n z-test at 1.96 peeked at after every pair: what the e-value protects against.
        if (n >= 10 && Math.abs(wins - losses) / Math.sqrt(n) >= 1.96) naive = true;
        if (sequentialSignTest(wins, losses).verdict !== 'not separated') {
          rejected++;
          break;
        }
      }
      if (naive) naiveRejected++;
    }
    expect(rejected / sequences).toBeLessThanOrEqual(0.05);
    expect(naiveRejected / sequences).toBeGreaterThan(0.15);
  });

  it('finds a real difference and its direction', () => {
    const random = mulberry32(3);
    let wins = 0;
    let losses = 0;
    let verdict = 'not separated';
    for (let n = 0; n < 200 && verdict === 'not separated'; n++) {
      if (random() < 0.25) wins++;
      else losses++;
      verdict = sequentialSignTest(wins, losses).verdict;
    }
    expect(verdict).toBe('B better');
  });

  it('rejects counts that are not whole numbers', () => {
    expect(() => sequentialSignTest(1.5, 0)).toThrow(/wins/);
    expect(() => sequentialSignTest(1, -1)).toThrow(/losses/);
  });
});
