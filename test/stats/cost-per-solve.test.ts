import { describe, expect, it } from 'vitest';
import { costFrontier, costPerSolve, type TaskCost } from '../../src/domain/stats/index.js';

const rows = (spec: Array<[successes: number, n: number, cost: number]>): TaskCost[] =>
  spec.map(([successes, n, cost], i) => ({ taskId: `t${i}`, successes, n, cost }));

describe('costPerSolve', () => {
  it('is total cost over total passes, inside its interval', () => {
    const r = costPerSolve(
      rows([
        [3, 3, 1.5],
        [1, 3, 1.5],
        [2, 3, 0.9],
        [0, 3, 2.1],
        [3, 3, 0.6],
        [2, 3, 1.2],
      ]),
      { seed: 1 },
    );
    expect(r.solved).toBe(11);
    expect(r.spent).toBeCloseTo(7.8, 12);
    expect(r.cost).toBeCloseTo(7.8 / 11, 12);
    expect(r.low).toBeLessThan(r.cost as number);
    expect(r.high).toBeGreaterThan(r.cost as number);
    expect(Number.isFinite(r.high)).toBe(true);
  });

  it('has no cost when nothing passed, and an open upper end when few tasks did', () => {
    expect(costPerSolve(rows([[0, 3, 1]]), { seed: 1 })).toMatchObject({ cost: null, low: null, high: null, spent: 1 });
    const rare = costPerSolve(
      rows([
        [1, 3, 1],
        [0, 3, 1],
        [0, 3, 1],
      ]),
      { seed: 1 },
    );
    expect(rare.cost).toBe(3);
    expect(rare.high).toBe(Infinity);
  });
});

describe('costFrontier', () => {
  const strong = rows(Array.from({ length: 8 }, () => [3, 3, 0.9] as [number, number, number]));
  const weak = rows(Array.from({ length: 8 }, () => [0, 3, 0.9] as [number, number, number]));
  const pricey = rows(Array.from({ length: 8 }, () => [3, 3, 30] as [number, number, number]));

  it('marks an agent dominated only when the paired test separates and the other costs no more per solve', () => {
    const f = costFrontier(
      [
        { agent: 'strong', rows: strong },
        { agent: 'weak', rows: weak },
        { agent: 'pricey', rows: pricey },
      ],
      { seed: 1 },
    );
    expect(f).toEqual([
      { agent: 'strong', dominatedBy: [] },
      // weak solves nothing: its cost per solve is unbounded, so any agent separated above it dominates it.
      { agent: 'weak', dominatedBy: ['strong', 'pricey'] },
      // As good as strong (not separated) though dearer: on the frontier, not dominated.
      { agent: 'pricey', dominatedBy: [] },
    ]);
  });

  it('does not call an agent dominated on too few tasks to separate', () => {
    const f = costFrontier(
      [
        { agent: 'strong', rows: strong.slice(0, 4) },
        { agent: 'weak', rows: weak.slice(0, 4) },
      ],
      { seed: 1 },
    );
    expect(f.find((e) => e.agent === 'weak')?.dominatedBy).toEqual([]);
  });
});
