import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireRunLock } from '../../src/engine/lock.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. */
function startTime(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
}

function sleeper(): number {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  return child.pid ?? 0;
}

/** Another process that takes the lock with the built engine and holds it until killed. */
async function holder(dir: string): Promise<ChildProcess> {
  const lock = pathToFileURL(resolve('dist/engine/lock.js')).href;
  const code = `const { acquireRunLock } = await import(${JSON.stringify(lock)}); await acquireRunLock(${JSON.stringify(dir)}, 'r'); process.stdout.write('locked\\n'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const [chunk] = (await once(child.stdout ?? child, 'data')) as [Buffer];
  expect(chunk.toString()).toBe('locked\n');
  return child;
}

describe('run.lock', () => {
  it('records pid, host and start time, and is removed on release', async () => {
    const dir = tempDir();
    const release = await acquireRunLock(dir, 'r');
    expect(readFileSync(join(dir, 'run.lock'), 'utf8')).toBe(`${process.pid} ${hostname()} ${startTime(process.pid)}\n`);
    await release();
    expect(existsSync(join(dir, 'run.lock'))).toBe(false);
  });

  it('is respected while the process that took it runs', async () => {
    const dir = tempDir();
    // The test runner's parent is a live Node process: as good as another crucible run.
    writeFileSync(join(dir, 'run.lock'), `${process.ppid} ${hostname()} ${startTime(process.ppid)}\n`);
    await expect(acquireRunLock(dir, 'r')).rejects.toThrow(`run r is in use by process ${process.ppid}`);
    // A lock from before start times were recorded: a Node process holding the pid keeps it.
    writeFileSync(join(dir, 'run.lock'), `${process.ppid} ${hostname()}\n`);
    await expect(acquireRunLock(dir, 'r')).rejects.toThrow(/is in use/);
  });

  it('keeps a second process out while a live one holds it, and lets it in once that one is killed', async () => {
    const dir = tempDir();
    const child = await holder(dir);
    await expect(acquireRunLock(dir, 'r')).rejects.toThrow(`run r is in use by process ${child.pid}`);
    child.kill('SIGKILL');
    await once(child, 'exit');
    await (
      await acquireRunLock(dir, 'r')
    )();
  });

  it('is taken over when its pid now belongs to another process (another start time)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'run.lock'), `${process.ppid} ${hostname()} ${Number(startTime(process.ppid)) + 1}\n`);
    const release = await acquireRunLock(dir, 'r');
    expect(readFileSync(join(dir, 'run.lock'), 'utf8')).toMatch(new RegExp(`^${process.pid} `));
    await release();
  });

  it('is taken over when a live process that is not crucible holds the pid', async () => {
    const dir = tempDir();
    const pid = sleeper();
    writeFileSync(join(dir, 'run.lock'), `${pid} ${hostname()}\n`);
    const release = await acquireRunLock(dir, 'r');
    expect(readFileSync(join(dir, 'run.lock'), 'utf8')).toMatch(new RegExp(`^${process.pid} `));
    await release();
    // With a start time that is not the sleeper's, too.
    writeFileSync(join(dir, 'run.lock'), `${pid} ${hostname()} 1\n`);
    await (
      await acquireRunLock(dir, 'r')
    )();
  });
});
