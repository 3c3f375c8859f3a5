import { describe, expect, it } from 'vitest';
import { adaptiveState, gateFutile, gateSequence, mulberry32, sequentialSignTest, type GateTarget } from '../../src/domain/stats/index.js';

const TASKS = Array.from({ length: 10 }, (_, i) => `t${i}`);

function target(baselineRate: (t: number) => number, margin: number, seed = 1, batch = 4): GateTarget {
  const baseline = Object.fromEntries(TASKS.map((id, t) => [id, baselineRate(t)]));
  return { kind: 'gate', confidence: 0.95, margin, agents: [{ agent: 'c', baseline }], tasks: TASKS, batch, seed };
}

type Rec = { taskId: string; agent: string; trial: number; passed: boolean | null };

/** Runs the design against a candidate with true per-task pass probabilities `p`, until decided or `budget` draws. */
function simulate(t: GateTarget, p: (task: number) => number, budget: number, random: () => number) {
  const records: Rec[] = [];
  const gated = t.agents[0] as GateTarget['agents'][number];
  let seq = gateSequence(records, gated, TASKS, t);
  while (seq.decision === 'open' && records.length < budget) {
    for (const d of seq.pending) records.push({ taskId: d.taskId, agent: 'c', trial: d.trial, passed: random() < p(TASKS.indexOf(d.taskId)) });
    seq = gateSequence(records, gated, TASKS, t);
  }
  return { seq, records };
}

describe('gateSequence: anytime-valid gate against a fixed baseline', () => {
  it('keeps both errors at or under alpha for a candidate exactly at baseline − margin (the worst case for either decision)', () => {
    // Baseline 70% on half the tasks, 30% on the other; the candidate's task-weighted rate is 0.5 − 0.1 = 0.4.
    const random = mulberry32(7);
    const runs = 400;
    let pass = 0;
    let fail = 0;
    for (let run = 0; run < runs; run++) {
      const t = target((k) => (k < 5 ? 0.7 : 0.3), 0.1, run + 1);
      const { seq } = simulate(t, (k) => (k < 5 ? 0.6 : 0.2), 200, random);
      if (seq.decision === 'pass') pass++;
      if (seq.decision === 'fail') fail++;
    }
    // Each decision is a wrong one here under one of the two nulls; Ville bounds each at 5%.
    expect(pass / runs).toBeLessThanOrEqual(0.05);
    expect(fail / runs).toBeLessThanOrEqual(0.05);
  });

  it('decides fail quickly for a candidate that never passes against a baseline that always did', () => {
    const { seq, records } = simulate(
      target(() => 1, 0),
      () => 0,
      100,
      mulberry32(1),
    );
    expect(seq.decision).toBe('fail');
    expect(seq.eForFail).toBeGreaterThanOrEqual(20);
    expect(records.length).toBeLessThanOrEqual(12);
    expect(seq.estimate).toBeLessThan(0.2);
  });

  it('decides pass for a candidate as good as the baseline once the margin leaves room, and never fails it', () => {
    const { seq } = simulate(
      target(() => 0.9, 0.1),
      () => 0.9,
      400,
      mulberry32(2),
    );
    expect(seq.decision).toBe('pass');
    expect(seq.eForPass).toBeGreaterThanOrEqual(20);
    expect(seq.pending).toEqual([]);
  });

  it('passes at once when the margin covers every pass rate', () => {
    const seq = gateSequence(
      [],
      { agent: 'c', baseline: Object.fromEntries(TASKS.map((id) => [id, 0.05])) },
      TASKS,
      target(() => 0.05, 0.1),
    );
    expect(seq).toMatchObject({ decision: 'pass', steps: 0, pending: [] });
  });

  it('replays from the finished trials: an interrupted look asks for exactly its missing draws, and finishing them gives the uninterrupted result', () => {
    const t = target(() => 0.8, 0.05, 42, 5);
    const gated = t.agents[0] as GateTarget['agents'][number];
    const full = simulate(t, () => 0.5, 40, mulberry32(3));
    // Drop the last two trials run, as an interrupt mid-look would leave the run.
    const cut = full.records.slice(0, full.records.length - 2);
    const resumed = gateSequence(cut, gated, TASKS, t);
    const missing = full.records.slice(-2).map((r) => ({ taskId: r.taskId, trial: r.trial }));
    expect(resumed.pending).toEqual(expect.arrayContaining(missing));
    expect(gateSequence([...cut, ...full.records.slice(-2)], gated, TASKS, t)).toEqual(full.seq);
    // A harness error (unscored) makes the draw take the task's next trial instead.
    const errored = [...cut, { ...(full.records.at(-1) as Rec), passed: null }];
    const last = full.records.at(-1) as Rec;
    expect(gateSequence(errored, gated, TASKS, t).pending).toContainEqual({ taskId: last.taskId, trial: last.trial + 1 });
  });

  it('futility: no budget left cannot decide; a large one still can', () => {
    const seq = gateSequence(
      [],
      { agent: 'c', baseline: Object.fromEntries(TASKS.map((id) => [id, 0.8])) },
      TASKS,
      target(() => 0.8, 0.05),
    );
    expect(gateFutile(seq, 0)).toBe(true);
    expect(gateFutile(seq, 3)).toBe(true);
    expect(gateFutile(seq, 100)).toBe(false);
  });
});

describe('adaptiveState futility (separate target)', () => {
  const records = (pairs: number) =>
    Array.from({ length: pairs }, (_, k) => [
      { taskId: 't0', agent: 'a', trial: k, passed: true },
      { taskId: 't0', agent: 'b', trial: k, passed: true },
    ]).flat();

  it('closes a comparison the remaining pairs cannot separate, and keeps one they can', () => {
    const target = { kind: 'separate', confidence: 0.95 } as const;
    // 6 attempts left are 3 pairs: E(3, 0) = 2³/4 = 2 < 20.
    const short = adaptiveState(records(4), ['a', 'b'], ['t0'], target, 6);
    expect(short).toMatchObject({ met: false, futile: true });
    expect(short.comparisons[0]).toMatchObject({ open: false, futile: true });
    expect(sequentialSignTest(3, 0).eValue).toBeLessThan(20);
    // 20 attempts left are 10 pairs: E(10, 0) = 2¹⁰/11 ≈ 93 ≥ 20.
    const long = adaptiveState(records(4), ['a', 'b'], ['t0'], target, 20);
    expect(long).toMatchObject({ met: false, futile: false });
    expect(long.comparisons[0]?.open).toBe(true);
  });
});
