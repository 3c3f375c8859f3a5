import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptBudget } from '../helpers/budget.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { useTempDirs } from '../helpers/tmp.js';
import { kill, startCli, startWorker, type Proc } from './processes.js';

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
});
