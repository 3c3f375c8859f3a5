import { describe, expect, it } from 'vitest';
import { executeRun } from '../../src/engine/index.js';
import type { AdaptiveRunOptions } from '../../src/engine/index.js';
import { readPlanFile } from '../../src/domain/run-dir/index.js';
import { useTempDirs } from '../helpers/tmp.js';
import { fakeRunOptions } from './helpers/run-options.js';
import { fakeRunner, fakeTasks } from './helpers/fake-run.mjs';

const tempDir = useTempDirs();

const separate = (maxAttempts: number): AdaptiveRunOptions => ({ maxAttempts, target: { kind: 'separate', confidence: 0.95 } });

/** good always passes, bad never does: 6 tasks, at most 10 trials each. */
const options = (dir: string, adaptive: AdaptiveRunOptions | undefined, extra: Parameters<typeof fakeRunOptions>[1] = {}) =>
  fakeRunOptions(dir, { tasks: fakeTasks(dir, 6), trials: 10, ...(adaptive ? { adaptive } : {}), ...extra });

describe('executeRun --adaptive', () => {
  it('stops once the agents are separated, well short of the budget, and says so', async () => {
    const dir = tempDir();
    const { summary } = await executeRun(options(dir, separate(60)));
    expect(summary.planned).toBe(120);
    expect(summary.executed).toBe(16);
    expect(summary.adaptive).toMatchObject({ stopped: 'target met', spent: 16, maxAttempts: 60 });
    expect(summary.adaptive?.comparisons).toEqual([expect.objectContaining({ a: 'good', b: 'bad', verdict: 'A better', wins: 8, losses: 0 })]);
    // The statistics are over the attempts that ran.
    expect(summary.stats.agents.find((a) => a.agent === 'good')?.passRate).toMatchObject({ rate: 1, n: 8 });
  });

  it('stops for futility when the agents cannot be told apart and the rest of the budget could not separate them', async () => {
    const dir = tempDir();
    const same = fakeRunner({ causeOf: () => 'passed' });
    const { summary } = await executeRun(options(dir, separate(20), { runAttempt: same }));
    // After 8 attempts, 12 are left: 6 pairs, and even 6 discordant wins give 2⁶/7 ≈ 9 < 20.
    expect(summary.executed).toBe(8);
    expect(summary.adaptive).toMatchObject({ stopped: 'futile', spent: 8 });
    expect(summary.adaptive?.comparisons[0]).toMatchObject({ futile: true });
    expect(summary.adaptive?.comparisons[0]?.verdict).toBe('not separated');
  });

  it('resumes an interrupted adaptive run from its finished attempts, with the target and budget from plan.json', async () => {
    const dir = tempDir();
    const stop = new AbortController();
    let done = 0;
    const first = await executeRun(
      options(dir, separate(60), {
        concurrency: 1,
        signal: stop.signal,
        observer: { onAttemptDone: () => (++done === 5 ? stop.abort() : undefined) },
      }),
    );
    expect(first.summary.ended).toBe('interrupted');
    expect(first.summary.adaptive?.stopped).toBe('interrupted');
    expect(first.summary.executed).toBe(5);
    // The look batch (here the run's one slot) is kept with the design, so a resume looks at the same points.
    expect((await readPlanFile(first.runDir, first.summary.runId)).adaptive).toEqual({ ...separate(60), batch: 1 });

    // One attempt at a time both times, so the looks fall where they would have without the interrupt.
    const resumed = await executeRun(options(dir, undefined, { concurrency: 1, resume: { runId: first.summary.runId } }));
    expect(resumed.summary).toMatchObject({ reused: 5, executed: 16, ended: 'completed' });
    expect(resumed.summary.adaptive).toMatchObject({ stopped: 'target met', spent: 16 });
  });

  it('gates adaptively against a fixed baseline, and an interrupted gate resumes to the same decision after the same attempts', async () => {
    const gate = (): AdaptiveRunOptions => ({
      maxAttempts: 40,
      target: {
        kind: 'gate',
        confidence: 0.95,
        margin: 0,
        agents: [{ agent: 'bad', baseline: Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`task-${i}`, 1])) }],
        tasks: Array.from({ length: 6 }, (_, i) => `task-${i}`),
        batch: 2,
        seed: 5,
      },
    });
    const whole = await executeRun(options(tempDir(), gate(), { agents: ['bad'], concurrency: 1 }));
    expect(whole.summary.adaptive).toMatchObject({ stopped: 'target met' });
    expect(whole.summary.adaptive?.agents[0]?.gate).toMatchObject({ decision: 'fail' });
    const spent = whole.summary.executed;
    expect(spent).toBeLessThan(20);

    const dir = tempDir();
    const stop = new AbortController();
    let done = 0;
    const first = await executeRun(
      options(dir, gate(), {
        agents: ['bad'],
        concurrency: 1,
        signal: stop.signal,
        observer: { onAttemptDone: () => (++done === 3 ? stop.abort() : undefined) },
      }),
    );
    expect(first.summary.ended).toBe('interrupted');
    const resumed = await executeRun(options(dir, undefined, { agents: ['bad'], concurrency: 1, resume: { runId: first.summary.runId } }));
    expect(resumed.summary).toMatchObject({ reused: 3, executed: spent, ended: 'completed' });
    expect(resumed.summary.adaptive?.agents[0]?.gate).toEqual(whole.summary.adaptive?.agents[0]?.gate);
  });

  it('spends a dollar budget (--max-cost-total) and stops before the next trial would pass it, with no attempt budget given', async () => {
    const dir = tempDir();
    // Identical agents never separate: only the dollars stop the run. Every attempt costs $0.50.
    const same = fakeRunner({ causeOf: () => 'passed', usage: { inputTokens: 100, outputTokens: 10, costUsd: 0.5 } });
    const { summary } = await executeRun(
      options(dir, { target: { kind: 'separate', confidence: 0.95 } }, { runAttempt: same, models: { runLimits: { maxCostUsd: 4.2 } } }),
    );
    // $4.00 after 8 attempts; the next pair would cost $1.00 more, past $4.20: not started.
    expect(summary.executed).toBe(8);
    expect(summary.adaptive).toMatchObject({ stopped: 'budget spent', budget: 'cost', spent: 8, maxAttempts: 120, cost: { maxUsd: 4.2, spentUsd: 4 } });
  });

  it('ends with the budget spent, not a loop, when a run cap the design cannot project (--max-tokens-total) halts the attempt loop', async () => {
    const dir = tempDir();
    const same = fakeRunner({ causeOf: () => 'passed', usage: { inputTokens: 100, outputTokens: 10 } });
    const { summary } = await executeRun(options(dir, separate(60), { runAttempt: same, concurrency: 1, models: { runLimits: { maxTokens: 250 } } }));
    // 110 tokens an attempt: the third passes 250, the loop starts nothing more, and the design stops instead of asking again.
    expect(summary.executed).toBe(3);
    expect(summary.adaptive).toMatchObject({ stopped: 'budget spent', spent: 3 });
    expect(summary.adaptive?.budget).toBeUndefined();
    expect(summary.runBudget).toMatchObject({ reached: 'tokens', spentTokens: 330 });
  });

  it('killed at three different moments and resumed, starts exactly the attempts of the uninterrupted run, in the same order of decisions', async () => {
    // Attempt ids differ between runs; a cell (task, agent, trial) is what a decision starts.
    const cell = (a: { taskId: string; agent: string; trial: number }): string => `${a.taskId}/${a.agent}/${a.trial}`;
    const started = (list: string[]) => ({ onAttemptStart: (plan: { taskId: string; agent: string; trial: number }) => void list.push(cell(plan)) });
    const wholeOrder: string[] = [];
    const whole = await executeRun(options(tempDir(), separate(60), { concurrency: 4, observer: started(wholeOrder) }));
    expect(whole.summary.adaptive?.stopped).toBe('target met');
    const wholeCells = whole.attempts.map(cell);

    const dir = tempDir();
    const order: string[] = [];
    let runId: string | undefined;
    // Killed when the 3rd, then the 6th, then the 10th attempt of the chain finishes: each time mid-batch, with attempts still running.
    let doneInAll = 0;
    for (const killAt of [3, 6, 10]) {
      const stop = new AbortController();
      const kill = new AbortController();
      const run = await executeRun(
        options(dir, runId === undefined ? separate(60) : undefined, {
          concurrency: 4,
          signal: stop.signal,
          killSignal: kill.signal,
          ...(runId !== undefined ? { resume: { runId } } : {}),
          observer: {
            ...started(order),
            onAttemptDone: () => {
              if (++doneInAll !== killAt) return;
              stop.abort();
              kill.abort();
            },
          },
        }),
      );
      expect(run.summary.ended).toBe('interrupted');
      runId = run.summary.runId;
    }
    const resumed = await executeRun(options(dir, undefined, { concurrency: 4, resume: { runId: runId as string }, observer: started(order) }));
    expect(resumed.summary.ended).toBe('completed');
    expect(resumed.summary.adaptive).toMatchObject({ stopped: 'target met', spent: whole.summary.adaptive?.spent });
    expect(resumed.attempts.map(cell).sort()).toEqual([...wholeCells].sort());
    // An attempt cut off by a kill is started again on resume: its first start is where its decision fell.
    const firstStarts = order.filter((c, i) => order.indexOf(c) === i);
    expect(firstStarts).toEqual(wholeOrder);
  });
});
