import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptBudget } from '../helpers/budget.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { useTempDirs } from '../helpers/tmp.js';
import { sha256Hex } from '../../src/features/distributed/blobs.js';
import { kill, startCli, startWorker, type Proc } from './processes.js';

const tempDir = useTempDirs();
let redis: TestRedis;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

/** The run's attempts as comparable facts: everything but timings, ids and where it ran. */
function outcomes(out: string): Array<Record<string, unknown>> {
  const runs = join(out, 'runs');
  const [runId] = readdirSync(runs);
  const dir = join(runs, runId as string, 'attempts');
  return readdirSync(dir)
    .map(
      (id) =>
        JSON.parse(readFileSync(join(dir, id, 'attempt.json'), 'utf8')) as Record<string, unknown> & {
          tests?: Record<string, unknown>;
          diff?: unknown;
          checks: Array<{ id: string; passed: boolean }>;
        },
    )
    .map((a) => ({
      task: a.taskId,
      agent: a.agent,
      trial: a.trial,
      verdict: a.verdict,
      cause: a.cause,
      score: a.score,
      failToPass: a.tests?.failToPass,
      passToPass: a.tests?.passToPass,
      diff: a.diff,
      checks: a.checks.map((c) => `${c.id}:${c.passed}`).sort(),
    }))
    .sort((x, y) => `${String(x.task)}/${String(x.agent)}`.localeCompare(`${String(y.task)}/${String(y.agent)}`));
}

describe('crucible run --queue with two workers', () => {
  it(
    'gives the same verdicts, evidence and statistics as a local run, with every shipped file verified into the run directory',
    async () => {
      const root = tempDir();
      const workers: Proc[] = [startWorker(redis.url, join(root, 'w1')), startWorker(redis.url, join(root, 'w2'))];
      try {
        await Promise.all(workers.map((w) => w.waitFor(/taking jobs from/)));
        const args = [
          'run',
          'examples/tasks.yaml',
          '--agent',
          'oracle',
          '--agent',
          'nop',
          '--runs',
          '1',
          '--task',
          'js-slugify',
          '--task',
          'js-sortby',
          '--json',
        ];
        // The local run beside the distributed one, at the same time: neither reads the other's state.
        const coordinator = startCli([...args, '--queue', redis.url, '--out', join(root, 'c')]);
        const localRun = startCli([...args, '--out', join(root, 'l')]);
        const code = await coordinator.exited;
        expect(code, coordinator.output()).toBe(1); // nop fails: exit 1, as locally
        expect(await localRun.exited, localRun.output()).toBe(1);

        expect(outcomes(join(root, 'c'))).toEqual(outcomes(join(root, 'l')));
        const json = (text: string): { counts: unknown; stats: { agents?: unknown } } => JSON.parse(text.slice(text.indexOf('{\n')));
        const last = (text: string): string => text.slice(text.lastIndexOf('\n{\n') + 1);
        const distributed = json(last(coordinator.output()));
        expect(distributed.counts).toEqual(json(last(localRun.output())).counts);
        expect(distributed.counts).toEqual({ PASS: 2, FAIL: 2, ERROR: 0 });

        // Each checkpoint line's hash is that of the attempt.json the coordinator wrote from the worker's verified files.
        const runs = join(root, 'c', 'runs');
        const runDir = join(runs, readdirSync(runs)[0] as string);
        const lines = readFileSync(join(runDir, 'checkpoint.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { attemptId: string; sha256: string });
        expect(lines).toHaveLength(4);
        for (const line of lines) {
          const dir = join(runDir, 'attempts', line.attemptId);
          expect(sha256Hex(readFileSync(join(dir, 'attempt.json')))).toBe(line.sha256);
          expect(readdirSync(dir)).toEqual(expect.arrayContaining(['attempt.json', 'diff.patch', 'tests.junit.xml']));
        }
        const plan = JSON.parse(readFileSync(join(runDir, 'plan.json'), 'utf8')) as { queue?: string };
        expect(plan.queue).toBe(redis.url);
        // The workers said what they ran; the coordinator withdrew the finished run from the queue.
        const ran = workers.map((w) => w.output().match(/^.*finished \S+: (PASS|FAIL)/gm) ?? []).flat();
        expect(ran).toHaveLength(4);
        await Promise.all(workers.map((w) => w.waitFor(/run \S+ is done/)));
      } finally {
        await Promise.all(workers.map((w) => kill(w, 'SIGTERM')));
      }
      for (const w of workers) expect(w.output()).toMatch(/worker stopped/);
    },
    attemptBudget(8),
  );
});
