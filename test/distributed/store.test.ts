import { existsSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { useTempDirs } from '../helpers/tmp.js';
import { downloadAttemptDir } from '../../src/features/distributed/artifacts.js';
import { putBlob, sha256Hex } from '../../src/features/distributed/blobs.js';
import { checkJobData } from '../../src/features/distributed/job.js';
import { blobKey } from '../../src/features/distributed/keys.js';
import { materializeTree, packTree, storeTree, type TreeEntry } from '../../src/features/distributed/tree.js';
import { parseQueueUrl } from '../../src/features/distributed/url.js';

const tempDir = useTempDirs();
let server: TestRedis;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.port, '127.0.0.1', { maxRetriesPerRequest: null });
});
afterAll(async () => {
  redis.disconnect();
  await server.stop();
});

/** Stores a hand-made manifest (what a hostile writer to Redis could put there) and returns its hash. */
async function manifestOf(entries: unknown[]): Promise<string> {
  return putBlob(redis, Buffer.from(JSON.stringify({ version: 1, entries })));
}

describe('the content-addressed store', () => {
  it('ships a tree with files, executable bits, empty directories and inner symlinks, and recreates it exactly', async () => {
    const src = tempDir();
    mkdirSync(join(src, 'a', 'empty'), { recursive: true });
    writeFileSync(join(src, 'a', 'f.txt'), 'hello\n');
    writeFileSync(join(src, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    symlinkSync('a/f.txt', join(src, 'link'));
    const sha = await storeTree(redis, await packTree(src, [src]));
    const dest = join(tempDir(), 'tree');
    await materializeTree(redis, sha, dest);
    expect(readFileSync(join(dest, 'a', 'f.txt'), 'utf8')).toBe('hello\n');
    expect(existsSync(join(dest, 'a', 'empty'))).toBe(true);
    expect(readlinkSync(join(dest, 'link'))).toBe('a/f.txt');
    expect(readFileSync(join(dest, 'run.sh')).length).toBe(10);
    expect((await import('node:fs')).statSync(join(dest, 'run.sh')).mode & 0o111).not.toBe(0);
  });

  it('refuses to pack a symlink that points out of the shipped tree', async () => {
    const src = tempDir();
    symlinkSync('/etc/passwd', join(src, 'out'));
    await expect(packTree(src, [src])).rejects.toThrow(/symlink out of the shipped tree/);
  });

  const file = async (path: string, text = 'x'): Promise<TreeEntry> => ({
    path,
    type: 'file',
    sha256: await putBlob(redis, Buffer.from(text)),
    size: text.length,
    exec: false,
  });

  it.each([
    ['a parent segment', async () => [await file('../escape')]],
    ['an absolute path', async () => [await file('/tmp/escape')]],
    ['a symlink out of the tree', async () => [{ path: 'l', type: 'symlink', target: '../../etc' }]],
    ['an absolute symlink', async () => [{ path: 'l', type: 'symlink', target: '/etc' }]],
    ['a file under a symlink', async () => [{ path: 'l', type: 'symlink', target: 'd' }, { path: 'd', type: 'dir' }, await file('l/x')]],
  ])('refuses a manifest with %s and leaves nothing behind', async (_what, entries) => {
    const dest = join(tempDir(), 'tree');
    await expect(materializeTree(redis, await manifestOf(await entries()), dest)).rejects.toThrow(/unsafe path|out of the tree|under a symlink/);
    expect(existsSync(dest)).toBe(false);
  });

  it('refuses a blob whose content does not match its hash', async () => {
    const entry = await file('f', 'good');
    await redis.set(blobKey(entry.type === 'file' ? entry.sha256 : ''), 'evil');
    await expect(materializeTree(redis, await manifestOf([entry]), join(tempDir(), 'tree'))).rejects.toThrow(/does not match its hash/);
  });

  it("refuses a worker's result whose attempt.json belongs to another attempt, and keeps nothing of it", async () => {
    const runDir = tempDir();
    mkdirSync(join(runDir, 'attempts'));
    const record = Buffer.from(JSON.stringify({ attemptId: 'other', runId: 'r1' }));
    const refs = [{ path: 'attempt.json', sha256: await putBlob(redis, record), size: record.length }];
    await expect(downloadAttemptDir(redis, runDir, { attemptId: 'mine', runId: 'r1' }, refs)).rejects.toThrow(/belongs to r1\/other/);
    expect(existsSync(join(runDir, 'attempts', 'mine'))).toBe(false);
    const escaping = [{ path: '../../x', sha256: sha256Hex('x'), size: 1 }];
    await expect(downloadAttemptDir(redis, runDir, { attemptId: 'mine', runId: 'r1' }, escaping)).rejects.toThrow(/unsafe path/);
  });
});

describe('job data from Redis', () => {
  const job = (plan: Record<string, unknown>): unknown => ({
    version: 1,
    plan: { attemptId: 'a.oracle.0.x', runId: 'r1', taskId: 't', agent: 'oracle', ...plan },
    inputs: { manifest: sha256Hex('m'), taskSet: 'tasks.yaml' },
    agents: ['oracle'],
    settings: {},
  });
  it.each([{ runId: '../../etc' }, { attemptId: '..' }, { attemptId: 'a/b' }, { runId: '' }])(
    'refuses a plan whose names would leave the worker directory: %o',
    (plan) => {
      expect(() => checkJobData(job(plan))).toThrow(/unsafe plan\./);
    },
  );
  it('accepts an ordinary attempt, and refuses another version naming the fix', () => {
    expect(checkJobData(job({})).plan.attemptId).toBe('a.oracle.0.x');
    expect(() => checkJobData({ version: 2 })).toThrow(/same Crucible version/);
  });
});

describe('--queue URLs', () => {
  it.each([
    ['http://127.0.0.1:6379', /expected a redis:\/\/ URL/],
    ['redis://user:secret@127.0.0.1:6379', /has credentials.*CRUCIBLE_QUEUE_PASSWORD/],
    ['redis://127.0.0.1:6379/zero', /has a database that is not a number/],
    ['not a url', /is not a URL/],
  ])('%s is refused with the fix', (url, problem) => {
    expect(() => parseQueueUrl('--queue', url)).toThrow(problem);
  });

  it('keeps host, port and database, and never the credentials', () => {
    expect(parseQueueUrl('--queue', 'redis://10.0.0.5:6380/3')).toEqual({ url: 'redis://10.0.0.5:6380/3', host: '10.0.0.5', port: 6380, db: 3 });
    expect(parseQueueUrl('--queue', 'redis://localhost').url).toBe('redis://localhost/0');
  });

  it('a bad URL, or no Redis answering, is one line and exit 2 for run and worker', async () => {
    const bad = await runCli(['run', 'examples/tasks.yaml', '--agent', 'nop', '--queue', 'redis://u:pw@127.0.0.1:1/0']);
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/--queue redis:\/\/\*\*\*@127\.0\.0\.1:1\/0: has credentials/);
    expect(bad.stderr).not.toMatch(/pw/);
    const none = await runCli(['worker', '--queue', 'redis://127.0.0.1:1/0', '--sandbox', 'local', '--out', join(tempDir(), 'w')]);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/^error.*--queue redis:\/\/127\.0\.0\.1:1\/0: no Redis answers .*\(fix: start redis-server/m);
  });
});
