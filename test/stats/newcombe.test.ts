import { describe, expect, it } from 'vitest';
import { newcombeDifference } from '../../src/domain/stats/index.js';

describe('newcombeDifference', () => {
  it("matches Newcombe's (1998) published example: 56/70 − 48/80", () => {
    const r = newcombeDifference({ successes: 56, n: 70 }, { successes: 48, n: 80 });
    expect(r?.diff).toBeCloseTo(0.2, 10);
    expect(r?.low).toBeCloseTo(0.0524, 4);
    expect(r?.high).toBeCloseTo(0.3339, 4);
  });

  it('stays inside [−1, 1] and keeps real width at the extremes', () => {
    const r = newcombeDifference({ successes: 18, n: 18 }, { successes: 0, n: 18 });
    expect(r?.diff).toBe(1);
    expect(r?.high).toBe(1);
    expect(r?.low).toBeGreaterThan(0.6);
    expect(r?.low).toBeLessThan(0.9);
  });

  it('is null when a side has no trials', () => {
    expect(newcombeDifference({ successes: 0, n: 0 }, { successes: 1, n: 2 })).toBeNull();
  });
});
