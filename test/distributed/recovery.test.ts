import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attemptBudget } from '../helpers/budget.js';
import { tempDirOf } from '../helpers/tmp.js';
import { kill, redisOfTest, runToEnd, slowTaskSet, startCli, startWorker } from './processes.js';

interface Record1 {
  attemptId: string;
  taskId: string;
  verdict: string;
  cause?: string;
}

function records(out: string): { runDir: string; attempts: Record1[]; checkpoint: string[] } {
  const runId = readdirSync(join(out, 'runs')).find((n) => !n.startsWith('.')) as string;
  const runDir = join(out, 'runs', runId);
  const dir = join(runDir, 'attempts');
  const attempts = readdirSync(dir)
    .filter((n) => !n.startsWith('.'))
    .map((id) => JSON.parse(readFileSync(join(dir, id, 'attempt.json'), 'utf8')) as Record1);
  const checkpoint = readFileSync(join(runDir, 'checkpoint.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { attemptId: string }).attemptId);
  return { runDir, attempts, checkpoint };
}

const verdicts = (attempts: Record1[]): string[] => attempts.map((a) => `${a.taskId} ${a.verdict} ${a.cause ?? ''}`).sort();

/**
 * Each test has a Redis of its own (a worker takes any job on its queue, and the tests restart or
 * flush theirs), so the tests run at once: most of their time is a task's sleep or an outage.
 * No persistence: a restart is a Redis that lost everything (the queue, the run set, the blobs).
 */
describe.concurrent('the queue is recoverable from the coordinator alone', () => {
  it(
    'Redis restarted without persistence mid-run: the run finishes by itself, each attempt recorded once, the verdicts a local run gives, and the outage logged once by each',
    async ({ onTestFinished }) => {
      const redis = await redisOfTest(onTestFinished, { persistence: false });
      const root = tempDirOf(onTestFinished);
      const tasks = slowTaskSet(join(root, 'set'), 3, 3);
      const worker = startWorker(redis.url, join(root, 'w'), ['--lock-ms', '5000']);
      try {
        await worker.waitFor(/taking jobs from/);
        const out = join(root, 'c');
        const coordinator = startCli(['run', tasks, '--agent', 'oracle', '--queue', redis.url, '--out', out, '-q']);
        await worker.waitFor(/started s1\./);
        await redis.restart();
        expect(await coordinator.exited, coordinator.output()).toBe(0);
        const queued = records(out);
        expect(queued.checkpoint.sort()).toEqual(queued.attempts.map((a) => a.attemptId).sort());
        expect(new Set(queued.checkpoint).size).toBe(3);

        const local = await runToEnd(['run', tasks, '--agent', 'oracle', '--out', join(root, 'local'), '-q']);
        expect(local.status, local.output).toBe(0);
        expect(verdicts(queued.attempts)).toEqual(verdicts(records(join(root, 'local')).attempts));

        const c = coordinator.output();
        expect(c.match(/coordinator: Redis at \S+ is unreachable/g)).toHaveLength(1);
        expect(c.match(/coordinator: Redis at \S+ answers again after an outage of \d+\.\d s/g)).toHaveLength(1);
        expect(c.match(/Redis lost run \S+ .*re-adding/g)).toHaveLength(1);
        await kill(worker, 'SIGTERM');
        const w = worker.output();
        expect(w.match(/worker \S+: Redis at \S+ is unreachable/g)).toHaveLength(1);
        expect(w.match(/worker \S+: Redis at \S+ answers again after an outage of \d+\.\d s/g)).toHaveLength(1);
      } finally {
        await kill(worker, 'SIGTERM');
      }
    },
    attemptBudget(8),
  );

  it(
    'Redis flushed mid-run (FLUSHALL, no outage): the coordinator notices its run gone, registers it again and the run finishes, each attempt once',
    async ({ onTestFinished }) => {
      const redis = await redisOfTest(onTestFinished, { persistence: false });
      const root = tempDirOf(onTestFinished);
      const tasks = slowTaskSet(join(root, 'set'), 2, 3);
      const worker = startWorker(redis.url, join(root, 'w'), ['--lock-ms', '5000']);
      try {
        await worker.waitFor(/taking jobs from/);
        const out = join(root, 'c');
        const coordinator = startCli(['run', tasks, '--agent', 'oracle', '--queue', redis.url, '--out', out, '-q']);
        await worker.waitFor(/started s1\./);
        expect(spawnSync('redis-cli', ['-p', String(redis.port), 'FLUSHALL'], { encoding: 'utf8' }).stdout.trim()).toBe('OK');
        expect(await coordinator.exited, coordinator.output()).toBe(0);
        const { attempts, checkpoint } = records(out);
        expect(attempts.map((a) => a.verdict)).toEqual(['PASS', 'PASS']);
        expect(checkpoint).toHaveLength(2);
        expect(new Set(checkpoint).size).toBe(2);
        expect(coordinator.output().match(/Redis lost run \S+ .*re-adding/g)).toHaveLength(1);
        expect(coordinator.output()).not.toMatch(/unreachable/);
      } finally {
        await kill(worker, 'SIGTERM');
      }
    },
    attemptBudget(6),
  );

  it(
    'a worker whose bwrap breaks mid-run steps aside: its attempts go back to the queue without a try spent, the healthy worker runs them, none ends harness_error',
    async ({ onTestFinished }) => {
      const redis = await redisOfTest(onTestFinished, { persistence: false });
      const root = tempDirOf(onTestFinished);
      const tasks = slowTaskSet(join(root, 'set'), 3, 3);
      // A bwrap that works for the worker's start-up checks (its first two sandboxes: the choice
      // and the health check) and then fails like a kernel that stopped allowing user namespaces.
      // `--version` runs at the same time as each probe, so it is not counted, and the count is
      // taken under a lock: two probes started together must not read the same number.
      const bin = join(root, 'bin');
      mkdirSync(bin, { recursive: true });
      const counter = join(root, 'bwrap-calls');
      writeFileSync(
        join(bin, 'bwrap'),
        [
          '#!/bin/sh',
          'if [ "$1" = "--version" ]; then exec /usr/bin/bwrap "$@"; fi',
          `n=$(flock '${counter}.lock' sh -c 'n=$(cat "$0" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$0"; echo $n' '${counter}')`,
          'if [ "$n" -gt 2 ]; then echo "bwrap: No permissions to create new namespace" >&2; exit 1; fi',
          'exec /usr/bin/bwrap "$@"',
          '',
        ].join('\n'),
      );
      chmodSync(join(bin, 'bwrap'), 0o755);
      const broken = startWorker(redis.url, join(root, 'broken'), ['--lock-ms', '5000'], { PATH: `${bin}:${process.env.PATH ?? ''}` });
      let healthy: ReturnType<typeof startWorker> | undefined;
      try {
        await broken.waitFor(/taking jobs from/);
        const out = join(root, 'c');
        const coordinator = startCli(['run', tasks, '--agent', 'oracle', '--queue', redis.url, '--out', out, '-q']);
        await broken.waitFor(/started s\d\./);
        healthy = startWorker(redis.url, join(root, 'healthy'), ['--lock-ms', '5000']);
        expect(await coordinator.exited, coordinator.output()).toBe(0);
        const { attempts, checkpoint } = records(out);
        expect(attempts.filter((a) => a.cause === 'harness_error')).toEqual([]);
        expect(attempts.map((a) => a.verdict)).toEqual(['PASS', 'PASS', 'PASS']);
        expect(new Set(checkpoint).size).toBe(3);
        const b = broken.output();
        expect(b).toMatch(
          /unhealthy: the bubblewrap sandbox is unusable: .*No permissions to create new namespace.*taking no jobs until it works again \(fix: /,
        );
        expect(b).toMatch(/back to the queue for a healthy worker, no try spent/);
        expect(b).not.toMatch(/finished s\d/);
        await kill(healthy, 'SIGTERM');
        expect(healthy.output().match(/finished s\d\.\S+: PASS/g)).toHaveLength(3);
      } finally {
        await kill(broken, 'SIGTERM');
        if (healthy) await kill(healthy, 'SIGTERM');
      }
    },
    attemptBudget(8),
  );
});
