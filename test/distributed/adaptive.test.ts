import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptBudget } from '../helpers/budget.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { useTempDirs } from '../helpers/tmp.js';
import { kill, startCli, startWorker, type Proc } from './processes.js';

/** The run in `out`: its id, the attempts it recorded (sorted) and the adaptive part of its summary. */
function adaptiveRunOf(out: string): { runId: string; attempts: string[]; adaptive?: Summary['adaptive'] } {
  const runs = join(out, 'runs');
  const runId = readdirSync(runs).find((n) => !n.startsWith('.')) as string;
  const runDir = join(runs, runId);
  const attempts = readFileSync(join(runDir, 'checkpoint.jsonl'), 'utf8')
    .trim()
    .split('\n')
    // An attempt id ends in a hash of its run id: the cell (task, agent, trial) is what is compared.
    .map((line) => (JSON.parse(line) as { attemptId: string }).attemptId.replace(/\.[0-9a-f]+$/, ''))
    .sort();
  const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
  return { runId, attempts, ...(summary.adaptive ? { adaptive: summary.adaptive } : {}) };
}

const tempDir = useTempDirs();
let redis: TestRedis;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

interface Summary {
  planned: number;
  executed: number;
  adaptive?: { stopped: string; spent: number; comparisons: Array<{ verdict: string }> };
}

describe('crucible run --adaptive --queue', () => {
  it(
    'looks between batches the workers ran and stops once the agents are separated; the rest of the plan is never queued',
    async () => {
      const root = tempDir();
      const workers: Proc[] = [startWorker(redis.url, join(root, 'w1'))];
      try {
        await Promise.all(workers.map((w) => w.waitFor(/taking jobs from/)));
        // One look every 8 attempts (4 pairs): oracle always passes, nop never does.
        const args = ['run', 'examples/tasks.yaml', '--agent', 'oracle', '--agent', 'nop', '--task', 'js-slugify', '--task', 'js-sortby'];
        const coordinator = startCli([
          ...args,
          '--adaptive',
          '--max-attempts',
          '40',
          '--concurrency',
          '8',
          '--queue',
          redis.url,
          '--out',
          join(root, 'c'),
          '--json',
        ]);
        const code = await coordinator.exited;
        expect(code, coordinator.output()).toBe(1); // nop fails
        const runs = join(root, 'c', 'runs');
        const runDir = join(runs, readdirSync(runs)[0] as string);
        const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
        expect(summary.adaptive).toMatchObject({ stopped: 'target met', spent: 16 });
        expect(summary.adaptive?.comparisons[0]?.verdict).toBe('A better');
        // 2 tasks × 2 agents × 10 trials planned; only the two looks' worth ran, all of it on the worker.
        expect(summary).toMatchObject({ planned: 40, executed: 16 });
        const ran = workers.flatMap((w) => w.output().match(/^.*finished \S+: (PASS|FAIL)/gm) ?? []);
        expect(ran).toHaveLength(16);
        expect(coordinator.output()).toContain('adaptive: stopped, target met');
        await Promise.all(workers.map((w) => w.waitFor(/run \S+ is done/)));
      } finally {
        await Promise.all(workers.map((w) => kill(w, 'SIGTERM')));
      }
    },
    attemptBudget(20),
  );

  it(
    'without -j, looks as a local run does and starts the same attempts; killed three times mid-run and resumed each time, still the same',
    async () => {
      const root = tempDir();
      // oracle passes and nop fails every attempt: the outcomes are fixed, so the attempts started are a function of the looks.
      const args = [
        'examples/tasks.yaml',
        '--agent',
        'oracle',
        '--agent',
        'nop',
        '--task',
        'js-slugify',
        '--task',
        'js-sortby',
        '--adaptive',
        '--max-attempts',
        '40',
      ];
      const local = startCli(['run', ...args, '--out', join(root, 'local')]);
      expect(await local.exited, local.output()).toBe(1);
      const expected = adaptiveRunOf(join(root, 'local'));
      expect(expected.adaptive).toMatchObject({ stopped: 'target met' });

      const workers: Proc[] = [
        startWorker(redis.url, join(root, 'w1'), ['--concurrency', '2']),
        startWorker(redis.url, join(root, 'w2'), ['--concurrency', '2']),
      ];
      try {
        await Promise.all(workers.map((w) => w.waitFor(/taking jobs from/)));
        // --queue's -j default (64 jobs queued at once) does not change the looks.
        const queued = startCli(['run', ...args, '--queue', redis.url, '--out', join(root, 'queued')]);
        expect(await queued.exited, queued.output()).toBe(1);
        const onQueue = adaptiveRunOf(join(root, 'queued'));
        expect(onQueue.attempts).toEqual(expected.attempts);
        expect(onQueue.adaptive).toEqual(expected.adaptive);

        // One run killed at three moments (its first attempt done, mid-way to the first look, past
        // it), the last two while it runs as a resume, each resumed with another -j: in the end the
        // same attempts and the same decisions. One run killed three times, not three runs killed
        // once: a resume is killed too, and the run is not made three times over.
        const out = join(root, 'killed');
        const base = finishedOn(workers);
        let running = startCli(['run', ...args, '--queue', redis.url, '--out', out]);
        for (const [moment, finishedBefore] of [1, 6, 10].entries()) {
          while (finishedOn(workers) < base + finishedBefore && running.child.exitCode === null) await pause();
          await kill(running, 'SIGKILL');
          const { runId } = adaptiveRunOfPlan(out);
          running = startCli(['resume', runId, '--concurrency', String(4 + 6 * moment), '--out', out]);
        }
        expect(await running.exited, running.output()).toBe(1);
        const again = adaptiveRunOf(out);
        expect(again.attempts, 'killed after 1, 6 and 10 attempts').toEqual(expected.attempts);
        expect(again.adaptive, 'killed after 1, 6 and 10 attempts').toEqual(expected.adaptive);
      } finally {
        await Promise.all(workers.map((w) => kill(w, 'SIGTERM')));
      }
    },
    attemptBudget(70),
  );
});

/** Attempts the workers have finished so far, over all runs. */
function finishedOn(workers: readonly Proc[]): number {
  return workers.reduce((sum, w) => sum + (w.output().match(/finished \S+: /g)?.length ?? 0), 0);
}

const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 100));

/** A run that may not have finished: only its id. */
function adaptiveRunOfPlan(out: string): { runId: string } {
  return { runId: readdirSync(join(out, 'runs')).find((n) => !n.startsWith('.')) as string };
}
