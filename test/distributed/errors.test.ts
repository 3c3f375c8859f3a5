import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crucible, runCli } from '../helpers/cli.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { useTempDirs } from '../helpers/tmp.js';
import { checkQueueReachable } from '../../src/features/distributed/connect.js';
import { startWorker } from '../../src/features/distributed/worker.js';
import { maskQueueUrl, parseQueueUrl } from '../../src/features/distributed/url.js';
import { version } from '../../src/core/version.js';

const tempDir = useTempDirs();
let server: TestRedis;

beforeAll(async () => {
  server = await startRedis({ password: 'hunter2' });
});
afterAll(async () => {
  await server.stop();
});

const address = (): ReturnType<typeof parseQueueUrl> => parseQueueUrl('--queue', server.url);

describe('Redis authentication', () => {
  it('a wrong password says Redis refused it (WRONGPASS), not that no Redis answers', async () => {
    process.env.CRUCIBLE_QUEUE_PASSWORD = 'wrong';
    try {
      await expect(checkQueueReachable('--queue', address())).rejects.toThrow(/Redis refused the password \(WRONGPASS.*\(fix: set CRUCIBLE_QUEUE_PASSWORD/);
    } finally {
      delete process.env.CRUCIBLE_QUEUE_PASSWORD;
    }
  });

  it('no password for a server that needs one says so (NOAUTH)', async () => {
    delete process.env.CRUCIBLE_QUEUE_PASSWORD;
    await expect(checkQueueReachable('--queue', address())).rejects.toThrow(/requires a password and none was given \(NOAUTH/);
  });

  it('the right password connects', async () => {
    process.env.CRUCIBLE_QUEUE_PASSWORD = 'hunter2';
    try {
      await expect(checkQueueReachable('--queue', address())).resolves.toBeUndefined();
    } finally {
      delete process.env.CRUCIBLE_QUEUE_PASSWORD;
    }
  });
});

describe('credentials in queue URLs are masked in every message', () => {
  it.each([
    ['redis://user:s3cr3t@host:6379/0', 'redis://***@host:6379/0'],
    ['redis://:s3cr3t@host', 'redis://***@host'],
    ['redis://us@er:s3@cr3t@host:1/0', 'redis://***@host:1/0'],
    ['redis://host:6379/0?password=s3cr3t', 'redis://host:6379/0?password=***'],
    ['redis://host?db=1&auth=s3cr3t', 'redis://host?db=***&auth=***'],
    ['redis://host:6379/0/s3cr3t', 'redis://host:6379/***'],
    ['redis://host/s3cr3t', 'redis://host/***'],
    ['redis://host/0#s3cr3t', 'redis://host/0#***'],
  ])('%s → %s', (url, shown) => {
    expect(maskQueueUrl(url)).toBe(shown);
    let message = '';
    try {
      parseQueueUrl('--queue', url);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(shown);
    expect(message).not.toMatch(/s3|cr3t/);
  });
});

describe('a worker of another Crucible version', () => {
  it('is refused with one line naming both versions, and takes none of the run’s jobs', async () => {
    const cli = (...args: string[]): string =>
      spawnSync('redis-cli', ['-p', String(server.port), '--no-auth-warning', '-a', 'hunter2', ...args], { encoding: 'utf8' }).stdout;
    cli('HSET', 'crucible:run:old-run', 'version', '0.0.1-old', 'format', '1');
    cli('SADD', 'crucible:runs', 'old-run');
    process.env.CRUCIBLE_QUEUE_PASSWORD = 'hunter2';
    const lines: string[] = [];
    const worker = await startWorker({ address: address(), concurrency: 1, sandbox: 'local', stateDir: tempDir(), log: (l) => lines.push(l) });
    try {
      // Several discovery rounds: said once, not once a second.
      await new Promise((r) => setTimeout(r, 2_500));
      const refusals = lines.filter((l) => /refusing run old-run/.test(l));
      expect(refusals).toHaveLength(1);
      expect(refusals[0]).toContain('Crucible 0.0.1-old (job format 1)');
      expect(refusals[0]).toContain(`Crucible ${version()} (job format 1)`);
      expect(lines.some((l) => /serving run old-run/.test(l))).toBe(false);
    } finally {
      await worker.stop();
      delete process.env.CRUCIBLE_QUEUE_PASSWORD;
      cli('DEL', 'crucible:runs', 'crucible:run:old-run');
    }
  });
});

describe('environment errors exit 2 with the fix, never "a bug"', () => {
  const noBwrap = { PATH: '/nonexistent' };
  // In-process where the error is the CLI's own; the no-engine case keeps a process of its own, as
  // the Docker client is made once per process (DOCKER_HOST is read then).
  it('a worker without bwrap', async () => {
    const r = await runCli(['worker', '--queue', server.url, '--out', join(tempDir(), 'w')], { env: noBwrap });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^error bubblewrap sandbox unavailable: bwrap is not installed.*Fix: sudo apt-get install -y bubblewrap/m);
    expect(r.stderr).not.toMatch(/a bug/);
  });
  it('a worker whose password Redis refuses', async () => {
    const r = await runCli(['worker', '--queue', server.url, '--sandbox', 'local', '--out', join(tempDir(), 'w')], {
      env: { CRUCIBLE_QUEUE_PASSWORD: 'wrong' },
    });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/Redis refused the password \(WRONGPASS/);
  });
  it('run --sandbox docker with no engine, and run --queue with no Redis', async () => {
    const docker = crucible(['run', 'examples/tasks.yaml', '--agent', 'nop', '--task', 'js-slugify', '--sandbox', 'docker', '--out', tempDir()], {
      env: { DOCKER_HOST: `unix://${join(tempDir(), 'none.sock')}` },
    });
    expect(docker.status, docker.stderr).toBe(2);
    expect(docker.stderr).toMatch(/no Docker engine answers.*fix:/);
    const redis = await runCli(['run', 'examples/tasks.yaml', '--agent', 'nop', '--queue', 'redis://127.0.0.1:1/0', '--out', tempDir()]);
    expect(redis.status, redis.stderr).toBe(2);
    expect(redis.stderr).toMatch(/no Redis answers.*fix: start redis-server/);
    for (const r of [docker, redis]) expect(r.stderr).not.toMatch(/a bug/);
  });
});
