import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attemptBudget } from '../helpers/budget.js';
import { tempDirOf } from '../helpers/tmp.js';
import { kill, redisOfTest, runToEnd, slowTaskSet, startCli, startWorker, type Proc } from './processes.js';

function runDirOf(out: string): { runId: string; runDir: string } {
  const runId = readdirSync(join(out, 'runs')).find((n) => !n.startsWith('.')) as string;
  return { runId, runDir: join(out, 'runs', runId) };
}

function attempts(runDir: string): Array<{ attemptId: string; verdict: string; cause: string; message?: string }> {
  const dir = join(runDir, 'attempts');
  return readdirSync(dir)
    .filter((n) => !n.startsWith('.'))
    .map((id) => JSON.parse(readFileSync(join(dir, id, 'attempt.json'), 'utf8')) as { attemptId: string; verdict: string; cause: string; message?: string });
}

function checkpointIds(runDir: string): string[] {
  return readFileSync(join(runDir, 'checkpoint.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { attemptId: string }).attemptId);
}

const started = (id = '\\S+'): RegExp => new RegExp(`started (${id}) `);

/**
 * Each test has a Redis of its own (a worker takes any job on its queue, and one test restarts its
 * server), so the tests run at once: most of their time is a task's sleep or a lock expiring.
 */
describe.concurrent('distributed runs survive faults', () => {
  it(
    'a worker killed mid-attempt: its job goes to another worker once the lock expires, and the result is accepted once',
    async ({ onTestFinished }) => {
      const redis = await redisOfTest(onTestFinished);
      const root = tempDirOf(onTestFinished);
      const tasks = slowTaskSet(join(root, 'set'), 1, 4);
      const first = startWorker(redis.url, join(root, 'w1'), ['--lock-ms', '2000']);
      let second: Proc | undefined;
      try {
        await first.waitFor(/taking jobs from/);
        const coordinator = startCli(['run', tasks, '--agent', 'oracle', '--queue', redis.url, '--out', join(root, 'c'), '-q']);
        const [, attemptId] = await first.waitFor(started());
        await kill(first);
        second = startWorker(redis.url, join(root, 'w2'), ['--lock-ms', '2000']);
        await second.waitFor(started(attemptId));
        expect(await coordinator.exited, coordinator.output()).toBe(0);
        const { runDir } = runDirOf(join(root, 'c'));
        expect(attempts(runDir).map((a) => [a.attemptId, a.verdict])).toEqual([[attemptId, 'PASS']]);
        expect(checkpointIds(runDir)).toEqual([attemptId]);
        expect(second.output()).toMatch(new RegExp(`finished ${attemptId}: PASS`));
      } finally {
        await kill(first);
        if (second) await kill(second, 'SIGTERM');
      }
    },
    attemptBudget(3),
  );

  it(
    'a coordinator killed mid-run: the workers finish, and `crucible resume` reads the finished jobs back instead of running them again',
    async ({ onTestFinished }) => {
      const redis = await redisOfTest(onTestFinished);
      const root = tempDirOf(onTestFinished);
      const tasks = slowTaskSet(join(root, 'set'), 2, 4);
      const worker = startWorker(redis.url, join(root, 'w'), ['--concurrency', '2']);
      try {
        await worker.waitFor(/taking jobs from/);
        const out = join(root, 'c');
        const coordinator = startCli(['run', tasks, '--agent', 'oracle', '--queue', redis.url, '--out', out, '-q']);
        await worker.waitFor(/started s1\./);
        await worker.waitFor(/started s2\./);
        await kill(coordinator);
        await worker.waitFor(/finished s1\.\S+: PASS/);
        await worker.waitFor(/finished s2\.\S+: PASS/);
        const { runId, runDir } = runDirOf(out);
        const resumed = await runToEnd(['resume', runId, '--out', out, '-q']);
        expect(resumed.status, resumed.output).toBe(0);
        expect(attempts(runDir).map((a) => a.verdict)).toEqual(['PASS', 'PASS']);
        expect(checkpointIds(runDir)).toHaveLength(2);
        // Read back, not rerun: each attempt started once on the worker (its whole output, once it stopped).
        await kill(worker, 'SIGTERM');
        expect(worker.output().match(/started s\d\./g)).toHaveLength(2);
      } finally {
        await kill(worker, 'SIGTERM');
      }
    },
    attemptBudget(6),
  );

  it(
    'Redis restarted mid-run (append-only persistence): the coordinator and the worker reconnect and the run completes',
    async ({ onTestFinished }) => {
      const redis = await redisOfTest(onTestFinished);
      const root = tempDirOf(onTestFinished);
      const tasks = slowTaskSet(join(root, 'set'), 2, 4);
      const worker = startWorker(redis.url, join(root, 'w'), ['--lock-ms', '10000']);
      try {
        await worker.waitFor(/taking jobs from/);
        const coordinator = startCli(['run', tasks, '--agent', 'oracle', '--queue', redis.url, '--out', join(root, 'c'), '-q']);
        await worker.waitFor(/started s1\./);
        await redis.restart();
        expect(await coordinator.exited, coordinator.output()).toBe(0);
        const { runDir } = runDirOf(join(root, 'c'));
        expect(attempts(runDir).map((a) => a.verdict)).toEqual(['PASS', 'PASS']);
        expect(checkpointIds(runDir)).toHaveLength(2);
      } finally {
        await kill(worker, 'SIGTERM');
      }
    },
    attemptBudget(4),
  );

  it(
    'a worker whose sandbox is missing (docker, no engine) steps aside from the start, saying why and the fix; a healthy worker runs the job',
    async ({ onTestFinished }) => {
      const redis = await redisOfTest(onTestFinished);
      const root = tempDirOf(onTestFinished);
      const broken = startWorker(redis.url, join(root, 'w'), ['--sandbox', 'docker'], { DOCKER_HOST: `unix://${join(root, 'no-docker.sock')}` });
      let healthy: Proc | undefined;
      try {
        await broken.waitFor(/taking jobs from/);
        expect(broken.output()).toMatch(
          /unhealthy: Docker is unusable: no Docker engine answers at \S*no-docker\.sock; taking no jobs until it works again \(fix: /,
        );
        const out = join(root, 'c');
        const coordinator = startCli(['run', 'examples/tasks.yaml', '--agent', 'oracle', '--task', 'js-slugify', '--queue', redis.url, '--out', out, '-q']);
        healthy = startWorker(redis.url, join(root, 'h'));
        expect(await coordinator.exited, coordinator.output()).toBe(0);
        expect(attempts(runDirOf(out).runDir).map((a) => a.verdict)).toEqual(['PASS']);
        expect(broken.output()).not.toMatch(/started /);
      } finally {
        await kill(broken, 'SIGTERM');
        if (healthy) await kill(healthy, 'SIGTERM');
      }
    },
    attemptBudget(4),
  );
  // After Ctrl-C the engine gives the running attempt its grace period (DEFAULT_GRACE_MS) to finish:
  // this test runs after the others, on its own, so the others' load does not eat into it.
  it.sequential(
    'Ctrl-C on the coordinator: the running attempt finishes and is recorded, queued jobs are withdrawn, and run --resume (no --queue) runs them on the workers',
    async ({ onTestFinished }) => {
      const redis = await redisOfTest(onTestFinished);
      const root = tempDirOf(onTestFinished);
      const tasks = slowTaskSet(join(root, 'set'), 3, 4);
      const worker = startWorker(redis.url, join(root, 'w'));
      try {
        await worker.waitFor(/taking jobs from/);
        const out = join(root, 'c');
        const coordinator = startCli(['run', tasks, '--agent', 'oracle', '--queue', redis.url, '--out', out, '-q']);
        const [, first] = await worker.waitFor(started());
        coordinator.child.kill('SIGINT');
        expect(await coordinator.exited, coordinator.output()).toBe(130);
        const { runId, runDir } = runDirOf(out);
        expect(checkpointIds(runDir)).toEqual([first]);
        // Withdrawn, not left for the worker: of the run's three jobs only the one that ran is still in Redis.
        const jobs = spawnSync('redis-cli', ['-p', String(redis.port), '--scan', '--pattern', `crucible:run.${runId}:s[0-9].*`], { encoding: 'utf8' }).stdout;
        expect(jobs.trim().split('\n').sort()).toEqual([`crucible:run.${runId}:${first}`]);
        // The queue comes from plan.json, as with `crucible resume`: the worker runs the rest.
        const resumed = await runToEnd(['run', tasks, '--agent', 'oracle', '--resume', runId, '--out', out, '-q']);
        expect(resumed.status, resumed.output).toBe(0);
        expect(checkpointIds(runDir)).toHaveLength(3);
        await kill(worker, 'SIGTERM');
        expect(worker.output().match(/started /g)).toHaveLength(3);
      } finally {
        await kill(worker, 'SIGTERM');
      }
    },
    attemptBudget(5),
  );
});
