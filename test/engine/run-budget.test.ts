import { describe, expect, it } from 'vitest';
import { AttemptWithdrawn, executeRun, type AttemptRunner } from '../../src/engine/index.js';
import { formatRunReport } from '../../src/cli/format-run.js';
import { listItemOf } from '../../src/features/report/index.js';
import { useTempDirs } from '../helpers/tmp.js';
import { fakeRunner, fakeTasks } from './helpers/fake-run.mjs';
import { fakeRunOptions } from './helpers/run-options.js';

const tempDir = useTempDirs();

describe('caps on a whole local run', () => {
  it('--max-cost-total: no attempt starts once the run has spent its cap; the summary says so', async () => {
    const dir = tempDir();
    // 12 planned attempts at $0.02 each, one at a time: the third brings the run to $0.06 >= $0.05.
    const outcome = await executeRun(
      fakeRunOptions(dir, {
        tasks: fakeTasks(dir, 6),
        concurrency: 1,
        runAttempt: fakeRunner({ usage: { inputTokens: 100, outputTokens: 10, costUsd: 0.02 } }),
        models: { runLimits: { maxCostUsd: 0.05 } },
      }),
    );
    const { summary } = outcome;
    expect(summary.planned).toBe(24);
    expect(summary.executed).toBe(3);
    expect(summary.stoppedEarly).toBe(true);
    expect(summary.runBudget).toEqual({ limits: { maxCostUsd: 0.05 }, spentUsd: 0.06, spentTokens: 330, reached: 'cost' });
    const printed = formatRunReport({ ...summary, attempts: outcome.attempts.map(listItemOf), runBudget: summary.runBudget });
    // Plain `resume` keeps the cap plan.json recorded, so the hint names the way past it.
    expect(printed).toContain(
      `stopped early (run cost cap reached: $0.06 of --max-cost-total $0.05): planned 24, executed 3; run the rest with a higher cap: \`crucible run <same arguments> --max-cost-total <more> --resume ${summary.runId}\``,
    );
  });

  it('--max-tokens-total, the same in tokens; a run under its cap completes and reports what it spent', async () => {
    const dir = tempDir();
    const capped = await executeRun(
      fakeRunOptions(dir, {
        concurrency: 1,
        runAttempt: fakeRunner({ usage: { inputTokens: 900, outputTokens: 100 } }),
        models: { runLimits: { maxTokens: 2500 } },
      }),
    );
    expect(capped.summary.executed).toBe(3);
    expect(capped.summary.runBudget?.reached).toBe('tokens');

    const other = tempDir();
    const under = await executeRun(
      fakeRunOptions(other, {
        concurrency: 1,
        runAttempt: fakeRunner({ usage: { inputTokens: 10, outputTokens: 1 } }),
        models: { runLimits: { maxTokens: 2500 } },
      }),
    );
    expect(under.summary.stoppedEarly).toBe(false);
    expect(under.summary.runBudget).toEqual({ limits: { maxTokens: 2500 }, spentUsd: 0, spentTokens: 132 });
  });

  it('a runner that queued attempts ahead is told once when the cap stops the run; what it withdraws is not recorded', async () => {
    const dir = tempDir();
    // Like the distributed queue: every attempt is handed out at once; the first finishes, the rest wait for a worker.
    const run = fakeRunner({ usage: { inputTokens: 900, outputTokens: 100 } });
    let halts = 0;
    let release: () => void = () => undefined;
    const halted = new Promise<void>((resolveHalt) => (release = resolveHalt));
    const queued: AttemptRunner = async (plan, task, agent, env) => {
      if (plan.index === 0) return run(plan, task, agent, env);
      await halted;
      throw new AttemptWithdrawn('withdrawn from the queue');
    };
    const outcome = await executeRun(
      fakeRunOptions(dir, {
        concurrency: 8,
        runAttempt: queued,
        onHalted: () => {
          halts++;
          release();
        },
        models: { runLimits: { maxTokens: 1000 } },
      }),
    );
    expect(halts).toBe(1);
    expect(outcome.summary.executed).toBe(1);
    expect(outcome.summary.counts.ERROR).toBe(0);
    expect(outcome.summary.stoppedEarly).toBe(true);
    expect(outcome.summary.runBudget).toMatchObject({ spentTokens: 1000, reached: 'tokens' });
  });
});
