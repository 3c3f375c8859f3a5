import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { compareRuns, expandPlan, MAX_PLANNED_ATTEMPTS, taskHash } from '../../src/engine/index.js';
import { selectTasks } from '../../src/domain/tasks/index.js';
import { withFlagNames } from '../../src/cli/option-flags.js';
import { schedule } from '../../src/engine/scheduler.js';
import { fakeTasks } from './helpers/fake-run.mjs';

describe('expandPlan', () => {
  const tasks = fakeTasks('/sets', 2);

  it('refuses a plan over the attempt ceiling before building it, naming the runs field', () => {
    // A billion would exhaust the heap if the plan were built first; refused at once instead.
    const attempt = (): unknown => expandPlan('r1', tasks, ['nop'], 1_000_000_000, {});
    expect(attempt).toThrow(InputError);
    expect(attempt).toThrow(/^trials 1000000000 × 2 task\(s\) × 1 agent\(s\) = 2,000,000,000 attempts, over the limit of 100,000 per run \(fix: /);
    expect(expandPlan('r1', tasks, ['nop'], MAX_PLANNED_ATTEMPTS / 2, {}).attempts).toHaveLength(MAX_PLANNED_ATTEMPTS);
    expect(() => expandPlan('r1', tasks, ['nop'], MAX_PLANNED_ATTEMPTS / 2 + 1, {})).toThrow(InputError);
  });

  it('orders task, then agent, then trial, with stable readable ids', () => {
    const plan = expandPlan('r1', tasks, ['oracle', 'openai:gpt-4.1'], 2, { sandbox: 'bwrap' });
    expect(plan.attempts.map((a) => `${a.taskId}/${a.agent}/${a.trial}/${a.index}`)).toEqual([
      'task-0/oracle/0/0',
      'task-0/oracle/1/1',
      'task-0/openai:gpt-4.1/0/2',
      'task-0/openai:gpt-4.1/1/3',
      'task-1/oracle/0/4',
      'task-1/oracle/1/5',
      'task-1/openai:gpt-4.1/0/6',
      'task-1/openai:gpt-4.1/1/7',
    ]);
    expect(plan.attempts[2]?.attemptId).toMatch(/^task-0\.openai-gpt-4-1\.0\.[0-9a-f]{10}$/);
    // The same definition gives the same ids in the same run: that is what resume relies on.
    const again = expandPlan('r1', tasks, ['oracle', 'openai:gpt-4.1'], 2, { sandbox: 'bwrap' });
    expect(again.attempts.map((a) => a.attemptId)).toEqual(plan.attempts.map((a) => a.attemptId));
    // Another run gets other ids (the history keys attempts by id), though its config hash is the same.
    const other = expandPlan('r2', tasks, ['oracle', 'openai:gpt-4.1'], 2, { sandbox: 'bwrap' });
    expect(other.attempts.filter((a, i) => a.attemptId === plan.attempts[i]?.attemptId)).toEqual([]);
    expect(other.configHash).toBe(plan.configHash);
  });

  it('changes the ids of a changed task only, and of every task when a defining setting changes', () => {
    const base = expandPlan('r', tasks, ['a'], 1, { sandbox: 'bwrap' });
    const edited = fakeTasks('/sets', 2);
    (edited[1] as { instruction: string }).instruction = 'something else';
    const changed = expandPlan('r', edited, ['a'], 1, { sandbox: 'bwrap' });
    expect(changed.attempts[0]?.attemptId).toBe(base.attempts[0]?.attemptId);
    expect(changed.attempts[1]?.attemptId).not.toBe(base.attempts[1]?.attemptId);
    expect(changed.configHash).not.toBe(base.configHash);

    const otherSandbox = expandPlan('r', tasks, ['a'], 1, { sandbox: 'local' });
    expect(otherSandbox.attempts[0]?.attemptId).not.toBe(base.attempts[0]?.attemptId);
    // Keeping workspaces is for debugging; it does not change what an attempt measures.
    expect(expandPlan('r', tasks, ['a'], 1, { sandbox: 'bwrap', keepWorkspace: true }).configHash).toBe(base.configHash);
  });

  it("keeps a task's identity across the agents' model access, while resume still sees the change", () => {
    const recorded = expandPlan('r', tasks, ['openai:m'], 1, { sandbox: 'bwrap', models: { baseUrl: 'http://127.0.0.1:4000/v1', limits: { maxTurns: 5 } } });
    const replayed = expandPlan('r', tasks, ['openai:m'], 1, { sandbox: 'bwrap', models: {} });
    const profiled = expandPlan('r', tasks, ['openai:m'], 1, { sandbox: 'bwrap', profiles: { x: 'p1' }, agentTrials: { nop: 1 } });
    const identities = (p: typeof recorded) => p.tasks.map((t) => t.identity);
    expect(identities(replayed)).toEqual(identities(recorded));
    expect(identities(profiled)).toEqual(identities(recorded));
    // Resume is refused (config hash) and a forced resume reruns (attempt ids): as before identities existed.
    expect(replayed.configHash).not.toBe(recorded.configHash);
    expect(replayed.attempts[0]?.attemptId).not.toBe(recorded.attempts[0]?.attemptId);
    // What the task is and how it is graded are in the identity.
    expect(identities(expandPlan('r', tasks, ['openai:m'], 1, { sandbox: 'local', models: {} }))).not.toEqual(identities(recorded));
    const edited = fakeTasks('/sets', 2);
    (edited[0] as { instruction: string }).instruction = 'something else';
    expect(identities(expandPlan('r', edited, ['openai:m'], 1, { sandbox: 'bwrap', models: {} }))[0]).not.toBe(identities(recorded)[0]);
  });

  it('hashes paths relative to the task set, so a moved checkout keeps its ids', () => {
    const [here] = fakeTasks('/home/me/project', 1);
    const [there] = fakeTasks('/srv/ci/checkout', 1);
    expect(taskHash(here!, {})).toBe(taskHash(there!, {}));
  });
});

describe('selectTasks', () => {
  const tasks = fakeTasks('/sets', 4);

  it('narrows by ids, tags (any), categories and difficulties, keeping task-set order', () => {
    expect(selectTasks(tasks, {}, 'f.yaml').map((t) => t.id)).toEqual(['task-0', 'task-1', 'task-2', 'task-3']);
    expect(selectTasks(tasks, { taskIds: ['task-3', 'task-1'] }, 'f.yaml').map((t) => t.id)).toEqual(['task-1', 'task-3']);
    expect(selectTasks(tasks, { tags: ['odd'] }, 'f.yaml').map((t) => t.id)).toEqual(['task-1', 'task-3']);
    expect(selectTasks(tasks, { tags: ['odd', 'even'], difficulties: ['easy'] }, 'f.yaml').map((t) => t.id)).toEqual(['task-0', 'task-1']);
    expect(selectTasks(tasks, { categories: ['bugfix'], tags: [] }, 'f.yaml')).toHaveLength(4);
  });

  it('names the selection field and the choices when nothing matches or an id is unknown; the CLI names its flags', () => {
    expect(() => selectTasks(tasks, { taskIds: ['nope'] }, 'f.yaml')).toThrow(
      'taskIds nope: no such task in f.yaml (fix: use one of task-0, task-1, task-2, task-3)',
    );
    expect(() => selectTasks(tasks, { tags: ['python'], difficulties: ['easy'] }, 'f.yaml')).toThrow(
      'tags python difficulties easy: no task in f.yaml matches (fix: the task set has tags: even, odd; categories: bugfix; difficulties: easy, hard)',
    );
    expect(() => withFlagNames(() => selectTasks(tasks, { tags: ['python'], difficulties: ['easy'] }, 'f.yaml'))).toThrow(
      '--tag python --difficulty easy: no task in f.yaml matches (fix: the task set has tags: even, odd; categories: bugfix; difficulties: easy, hard)',
    );
    expect(() => withFlagNames(() => selectTasks(tasks, { taskIds: ['nope'] }, 'f.yaml'))).toThrow(/^--task nope: no such task/);
  });
});

describe('schedule', () => {
  it('keeps at most `concurrency` in flight, starts in order, and stops starting when told', async () => {
    let inFlight = 0;
    let peak = 0;
    const started: number[] = [];
    const items = [...Array(20).keys()];
    const result = await schedule(
      items,
      3,
      async (i) => {
        started.push(i);
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, (i * 7) % 5));
        inFlight--;
      },
      () => started.length >= 12,
    );
    expect(peak).toBe(3);
    expect(started).toEqual([...Array(12).keys()]);
    expect(result.started).toBe(12);
  });
});

describe('compareRuns', () => {
  const cell = (agent: string, taskId: string, passes: number, n = 3, errors = 0) => ({ agent, taskId, passes, n, errors });

  it('reports per-cell deltas, regressions and a paired verdict per shared agent', () => {
    const tasks = ['t1', 't2', 't3', 't4', 't5', 't6'];
    const a = { runId: 'A', cells: tasks.map((t) => cell('x', t, 3)) };
    const b = { runId: 'B', cells: [...tasks.map((t, i) => cell('x', t, i === 0 ? 3 : 0)), cell('x', 't7', 1)] };
    const c = compareRuns(a, b);
    expect(c.cells).toHaveLength(7);
    expect(c.cells[0]).toMatchObject({ taskId: 't1', rateA: 1, rateB: 1, delta: 0, change: 'same' });
    expect(c.cells[1]).toMatchObject({ taskId: 't2', delta: -1, change: 'worse' });
    expect(c.cells[6]).toMatchObject({ taskId: 't7', a: null, change: 'only in B' });
    expect(c.regressions.map((d) => d.taskId)).toEqual(['t2', 't3', 't4', 't5', 't6']);
    expect(c.pairs).toHaveLength(1);
    // 5 of 6 shared tasks differ, all one way: too few for the exact sign-flip test at 95%.
    expect(c.pairs[0]?.comparison).toMatchObject({ verdict: 'not separated', tasks: 6 });
  });

  it('agrees with the run statistics: a lean too small for the pooled trials is not separated', () => {
    // Every task leans A's way (3/10 against 2/10): the sign-flip test alone would separate them.
    const tasks = ['t1', 't2', 't3', 't4', 't5', 't6'];
    const c = compareRuns({ runId: 'A', cells: tasks.map((t) => cell('x', t, 3, 10)) }, { runId: 'B', cells: tasks.map((t) => cell('x', t, 2, 10)) });
    expect(c.pairs[0]?.comparison).toMatchObject({ verdict: 'not separated', floor: 'newcombe' });
    expect(c.pairs[0]?.comparison.low).toBeLessThan(0);
  });

  it('pairs the only agent of each run when they share none, and notes changed tasks', () => {
    const tasks = ['t1', 't2', 't3', 't4', 't5', 't6', 't7'];
    const c = compareRuns(
      { runId: 'A', cells: tasks.map((t) => cell('old', t, 0)), tasks: [{ id: 't1', version: '1', hash: 'h1' }] },
      { runId: 'B', cells: tasks.map((t) => cell('new', t, 3)), tasks: [{ id: 't1', version: '1', hash: 'h2' }] },
    );
    expect(c.pairs[0]).toMatchObject({ agentA: 'old', agentB: 'new', comparison: { verdict: 'B better', tasks: 7 } });
    expect(c.notes).toEqual([
      'the runs share no agent; comparing old (A) with new (B)',
      'task t1 differs between the runs (content, version or grading settings): their deltas mix agent and task changes',
    ]);
  });

  it('compares task identities when both plans have them, and the older hash otherwise', () => {
    const cells = [cell('x', 't1', 1), cell('x', 't2', 1)];
    const a = {
      runId: 'A',
      cells,
      tasks: [
        { id: 't1', version: '1', hash: 'h1', identity: 'i1' },
        { id: 't2', version: '1', hash: 'h3' },
      ],
    };
    const b = {
      runId: 'B',
      cells,
      tasks: [
        { id: 't1', version: '1', hash: 'h2', identity: 'i1' },
        { id: 't2', version: '1', hash: 'h4', identity: 'i2' },
      ],
    };
    expect(compareRuns(a, b).notes).toEqual([expect.stringMatching(/^task t2 differs between the runs/)]);
    expect(compareRuns(a, { ...b, tasks: [{ id: 't1', version: '1', hash: 'h2', identity: 'i9' }] }).notes).toEqual([
      expect.stringMatching(/^task t1 differs/),
    ]);
  });
});
