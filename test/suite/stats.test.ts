import { describe, expect, it } from 'vitest';
import { aggregateRun, taskSetsOfIds } from '../../src/domain/stats/index.js';
import type { AttemptResult } from '../../src/core/types/index.js';
import { attempt } from '../report/fixtures.js';

/** Two sets of uneven difficulty: `a` with 3 tasks, `b` with 2; agents x and y, 3 trials each. */
function attempts(): AttemptResult[] {
  const out: AttemptResult[] = [];
  const outcomes: Record<string, Record<string, string>> = {
    'a/t1': { x: 'PPP', y: 'PFP' },
    'a/t2': { x: 'PPF', y: 'FFF' },
    'a/t3': { x: 'PPP', y: 'PPE' },
    'b/t1': { x: 'FFF', y: 'PFF' },
    'b/t2': { x: 'FPF', y: 'FFF' },
  };
  for (const [taskId, byAgent] of Object.entries(outcomes)) {
    for (const [agent, trials] of Object.entries(byAgent)) {
      [...trials].forEach((o, trial) => out.push(attempt({ taskId, agent, trial, verdict: o === 'P' ? 'PASS' : o === 'F' ? 'FAIL' : 'ERROR' })));
    }
  }
  return out;
}

describe('aggregateRun: byTaskSet', () => {
  const all = attempts();
  const taskSet = new Map(all.map((a) => [a.taskId, a.taskId.split('/')[0] as string]));
  const stats = aggregateRun(all, { taskSet });

  it('is absent without a task-set map (a run of one task set)', () => {
    expect(aggregateRun(all).byTaskSet).toBeUndefined();
  });

  it("gives each agent on each set the same pass rate, n and interval as aggregating that set's attempts alone", () => {
    expect(stats.byTaskSet?.map((s) => [s.taskSet, s.tasks, s.attempts])).toEqual([
      ['a', 3, 18],
      ['b', 2, 12],
    ]);
    for (const set of ['a', 'b']) {
      const alone = aggregateRun(all.filter((a) => taskSet.get(a.taskId) === set));
      const rows = stats.byTaskSet?.find((s) => s.taskSet === set)?.agents ?? [];
      expect(rows.map((r) => r.agent)).toEqual(['x', 'y']);
      for (const row of rows) {
        const agent = alone.agents.find((a) => a.agent === row.agent);
        expect(row.passRate).toEqual(agent?.passRate);
        expect([row.scored, row.passes, row.harnessErrors.count]).toEqual([agent?.scored, agent?.passes, agent?.harnessErrors.count]);
      }
    }
    // The harness error on a/t3 stays out of the denominator: 8 scored, 4 passes.
    expect(stats.byTaskSet?.[0]?.agents[1]).toMatchObject({ scored: 8, passes: 4, harnessErrors: { count: 1 }, passRate: { n: 8, tasks: 3 } });
  });
});

describe('taskSetsOfIds: the task sets of a recorded suite run, from its ids', () => {
  it('maps `<set>/<task>` ids to their set, and gives nothing for a plain run', () => {
    expect(taskSetsOfIds(['a/t1', 'b/t1', 'a/t2'])).toEqual(
      new Map([
        ['a/t1', 'a'],
        ['b/t1', 'b'],
        ['a/t2', 'a'],
      ]),
    );
    expect(taskSetsOfIds(['t1', 't2'])).toBeUndefined();
    expect(taskSetsOfIds([])).toBeUndefined();
  });

  it('recomputed report statistics of a suite run have the same byTaskSet as the engine gives', () => {
    const all = attempts();
    const engine = aggregateRun(all, { taskSet: new Map(all.map((a) => [a.taskId, a.taskId.split('/')[0] as string])) });
    const recomputed = aggregateRun(all, { taskSet: taskSetsOfIds(all.map((a) => a.taskId)) });
    expect(recomputed.byTaskSet).toEqual(engine.byTaskSet);
  });
});
