import { describe, expect, it } from 'vitest';
import { adaptiveState, nextTrials, type AdaptiveTarget, type TrialRecord } from '../../src/domain/stats/index.js';

const TASKS = ['t1', 't2', 't3', 't4', 't5', 't6'];
const SEPARATE: AdaptiveTarget = { kind: 'separate', confidence: 0.95 };

/** Runs the design against agents whose trials always come out as `passes` says, up to a budget. */
function simulate(passes: (agent: string, taskId: string) => boolean, agents: string[], target: AdaptiveTarget, budget: number) {
  const records: TrialRecord[] = [];
  let state = adaptiveState(records, agents, TASKS, target);
  while (!state.met && records.length < budget) {
    for (const step of nextTrials(records, state, TASKS)) {
      for (const agent of step.agents) records.push({ taskId: step.taskId, agent, trial: step.trial, passed: passes(agent, step.taskId) });
    }
    state = adaptiveState(records, agents, TASKS, target);
  }
  return { records, state };
}

describe('adaptive design', () => {
  it('separates an agent that always passes from one that never does after 8 pairs', () => {
    const { records, state } = simulate((agent) => agent === 'oracle', ['oracle', 'nop'], SEPARATE, 60);
    expect(state.met).toBe(true);
    expect(records).toHaveLength(16);
    expect(state.comparisons[0]?.test).toMatchObject({ verdict: 'A better', wins: 8, losses: 0 });
    // Every task was tried before any was tried twice.
    expect(new Set(records.slice(0, 12).map((r) => r.taskId)).size).toBe(6);
  });

  it('never meets a separate target for identical agents and keeps spending until the budget', () => {
    const { records, state } = simulate((_, taskId) => taskId < 't4', ['a', 'b'], SEPARATE, 40);
    expect(state.met).toBe(false);
    expect(records.length).toBeGreaterThanOrEqual(40);
    expect(state.comparisons[0]?.test.verdict).toBe('not separated');
  });

  it('retires a task whose first two pairs agreed and keeps one that disagreed', () => {
    const pair = (taskId: string, trial: number, a: boolean, b: boolean): TrialRecord[] => [
      { taskId, agent: 'a', trial, passed: a },
      { taskId, agent: 'b', trial, passed: b },
    ];
    // t1 agreed twice (retired), t2 disagreed once then agreed (live), t3 agreed once (live), t4 untried.
    const records = [
      ...pair('t1', 0, true, true),
      ...pair('t1', 1, true, true),
      ...pair('t2', 0, true, false),
      ...pair('t2', 1, false, false),
      ...pair('t3', 0, false, false),
    ];
    const tasks = ['t1', 't2', 't3', 't4'];
    const state = adaptiveState(records, ['a', 'b'], tasks, SEPARATE);
    expect(nextTrials(records, state, tasks, 4)).toEqual([
      { taskId: 't4', agents: ['a', 'b'], trial: 0 },
      { taskId: 't3', agents: ['a', 'b'], trial: 1 },
      { taskId: 't2', agents: ['a', 'b'], trial: 2 },
    ]);
    // With every task retired, all are tried again rather than stopping short of the budget.
    const agreed = tasks.flatMap((t) => [...pair(t, 0, true, true), ...pair(t, 1, true, true)]);
    expect(nextTrials(agreed, adaptiveState(agreed, ['a', 'b'], tasks, SEPARATE), tasks, 4)).toHaveLength(4);
  });

  it('finishes a pair set an interrupt left half run before starting another', () => {
    const records: TrialRecord[] = [
      { taskId: 't1', agent: 'a', trial: 0, passed: true },
      { taskId: 't1', agent: 'b', trial: 0, passed: false },
      { taskId: 't2', agent: 'a', trial: 0, passed: true },
    ];
    const state = adaptiveState(records, ['a', 'b'], TASKS, SEPARATE);
    expect(nextTrials(records, state, TASKS, 4)).toEqual([{ taskId: 't2', agents: ['b'], trial: 0 }]);
  });

  it('counts a pair only when both trials were scored', () => {
    const records: TrialRecord[] = [
      { taskId: 't1', agent: 'a', trial: 0, passed: true },
      { taskId: 't1', agent: 'b', trial: 0, passed: null },
      { taskId: 't1', agent: 'a', trial: 1, passed: true },
      { taskId: 't1', agent: 'b', trial: 1, passed: false },
    ];
    const state = adaptiveState(records, ['a', 'b'], ['t1'], SEPARATE);
    expect(state.comparisons[0]).toMatchObject({ pairs: 1, open: true });
    expect(state.comparisons[0]?.test).toMatchObject({ wins: 1, losses: 0 });
  });

  it('rebuilds the same state from the records in any order (what resume relies on)', () => {
    const { records } = simulate((agent, taskId) => agent === 'a' || taskId === 't2', ['a', 'b', 'c'], SEPARATE, 30);
    const forward = adaptiveState(records, ['a', 'b', 'c'], TASKS, SEPARATE);
    const backward = adaptiveState([...records].reverse(), ['a', 'b', 'c'], TASKS, SEPARATE);
    expect(backward).toEqual(forward);
    expect(nextTrials([...records].reverse(), backward, TASKS)).toEqual(nextTrials(records, forward, TASKS));
  });

  it('stops trying agents whose comparisons are all decided', () => {
    // a always passes, b and c never: a is separated from both, b vs c stays open.
    const { state, records } = simulate((agent) => agent === 'a', ['a', 'b', 'c'], SEPARATE, 60);
    expect(state.comparisons.map((c) => [c.a, c.b, c.open])).toEqual([
      ['a', 'b', false],
      ['a', 'c', false],
      ['b', 'c', true],
    ]);
    expect(state.agents.find((s) => s.agent === 'a')?.open).toBe(false);
    const last = records.slice(-4);
    expect(last.every((r) => r.agent !== 'a')).toBe(true);
  });

  it('runs full rounds for the width target and stops once every interval is narrow enough', () => {
    const target: AdaptiveTarget = { kind: 'width', width: 0.3, confidence: 0.95 };
    const { state, records } = simulate((agent, taskId) => agent === 'a' || taskId === 't1', ['a', 'b'], target, 1000);
    expect(state.met).toBe(true);
    expect(records.length % TASKS.length).toBe(0);
    for (const s of state.agents) expect((s.sequence?.high ?? 1) - (s.sequence?.low ?? 0)).toBeLessThanOrEqual(0.3);
    expect(() => adaptiveState([], ['a'], TASKS, { kind: 'width', width: 0, confidence: 0.95 })).toThrow(/width/);
  });
});
