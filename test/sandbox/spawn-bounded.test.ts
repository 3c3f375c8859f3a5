import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnBounded } from '../../src/infra/sandbox/spawn-bounded.js';
import type { BoundedSpawnRequest } from '../../src/infra/sandbox/spawn-bounded.js';
import { isAlive, processesWithArg, uniqueSleepArg } from './helpers.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const sh = (script: string, over: Partial<BoundedSpawnRequest> = {}) =>
  spawnBounded({ argv: ['sh', '-c', script], cwd: process.cwd(), env, timeoutMs: 30_000, killGraceMs: 200, ...over });

describe('spawnBounded', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crucible-spawn-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('resolves once the command exits although an orphaned, setsid grandchild holds its stdout', async () => {
    const arg = uniqueSleepArg();
    // Reading stdin first makes sure the command is still there to be asked for its stdio. The
    // middle shell exits at once, so the sleeper is neither in the group nor a descendant by ppid.
    const script = [
      'read -r _',
      `sh -c "setsid sh -c 'trap \\"\\" TERM; touch orphan.started; exec sleep ${arg}' &"`,
      'while [ ! -e orphan.started ]; do sleep 0.01; done',
      'echo parent-done',
    ].join('\n');
    const result = await sh(script, { stdin: 'go\n', cwd: dir });
    expect(result).toMatchObject({ exitCode: 0, signal: null, stdout: 'parent-done\n', timedOut: false });
    expect(processesWithArg(arg)).toEqual([]);
  });

  it('exchanges messages with the child on the control channel (fd 3)', async () => {
    const result = await sh('read -r line <&3; echo "got $line" >&3; echo "on stdout"', { control: 'ping\n' });
    expect(result.control).toBe('got ping\n');
    expect(result.stdout).toBe('on stdout\n');
  });

  it('does not hang on stdin the command never reads', async () => {
    const result = await sh('exit 0', { stdin: 'x'.repeat(4 * 1024 * 1024) });
    expect(result.exitCode).toBe(0);
  });

  it('ends the tree at once when the signal is already aborted', async () => {
    const arg = uniqueSleepArg();
    const result = await sh(`sleep ${arg}`, { signal: AbortSignal.abort() });
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGTERM', timedOut: false });
    expect(processesWithArg(arg)).toEqual([]);
  });

  it('kills a command that ignores SIGTERM once the grace period is over', async () => {
    const result = await sh("trap '' TERM; echo $$; while :; do sleep 1; done", { timeoutMs: 300 });
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: true });
    expect(isAlive(Number(result.stdout.trim()))).toBe(false);
  });

  it('rejects when the command cannot be spawned', async () => {
    await expect(spawnBounded({ argv: ['no-such-command-xyz'], cwd: process.cwd(), env, timeoutMs: 1000 })).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});
