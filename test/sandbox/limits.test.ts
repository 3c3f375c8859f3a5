import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { detectCgroups } from '../../src/infra/sandbox/cgroup.js';
import { createExecutor, SandboxSetupError } from '../../src/infra/sandbox/index.js';
import { limitSupport, runLimited } from '../../src/infra/sandbox/limits.js';
import { spawnBounded } from '../../src/infra/sandbox/spawn-bounded.js';
import type { ExecLimits, ExecRequest, ExecResult, SandboxKind } from '../../src/infra/sandbox/index.js';
import { makeSandboxDirs, processesWithArg, uniqueSleepArg } from './helpers.js';
import type { SandboxDirs } from './helpers.js';

/**
 * Each limit really hit by a small command, under each executor: reported by name, the command
 * stopped, the executor still usable, and no cgroup left behind.
 */
const KINDS: SandboxKind[] = ['local', 'bwrap'];
const MIB = 1024 * 1024;
const asRoot = process.getuid?.() === 0;

/** Exec cgroups this test process made and did not remove. */
function leftoverCgroups(): string[] {
  const prefix = `crucible-${process.pid}-`;
  return Object.values(detectCgroups()).flatMap((home) =>
    readdirSync(home.parent)
      .filter((name) => name.startsWith(prefix))
      .map((name) => join(home.parent, name)),
  );
}

describe.each(KINDS)('%s executor limits', (kind) => {
  let dirs: SandboxDirs;

  beforeAll(async () => {
    dirs = await makeSandboxDirs();
  });
  afterAll(async () => {
    if (dirs) await rm(dirs.root, { recursive: true, force: true });
  });
  afterEach(() => {
    expect(leftoverCgroups()).toEqual([]);
  });

  const executorWith = (limits: ExecLimits, cgroups = true) =>
    createExecutor(kind, { writable: [dirs.workspace], hidden: [], readOnly: [], home: dirs.home, tmp: dirs.tmp, limits }, { killGraceMs: 300, cgroups });
  const run = (limits: ExecLimits, argv: string[], over: Partial<ExecRequest> = {}, cgroups = true): Promise<ExecResult> =>
    executorWith(limits, cgroups).exec({ argv, cwd: dirs.workspace, timeoutMs: 60_000, network: 'none', ...over });
  const sh = (limits: ExecLimits, script: string, cgroups = true) => run(limits, ['sh', '-c', script], {}, cgroups);
  const stillUsable = async (limits: ExecLimits) => {
    expect(await sh(limits, 'echo ok')).toMatchObject({ exitCode: 0, stdout: 'ok\n', timedOut: false });
  };

  it.runIf(asRoot)('as root on a host with cgroups, enforces every limit and says so', () => {
    expect(executorWith({}).capabilities.limits).toEqual(['pids', 'memory', 'cpu_time', 'file_size']);
  });

  it('runs a command within its limits untouched', async () => {
    const limits = { pids: 256, memoryBytes: 512 * MIB, cpuSeconds: 30, fileSizeBytes: MIB };
    const result = await sh(limits, 'echo hi; head -c 1000 /dev/zero > small; wc -c < small');
    expect(result).toMatchObject({ exitCode: 0, stdout: 'hi\n1000\n', timedOut: false });
    expect(result.limitExceeded).toBeUndefined();
  });

  it('takes a command that prints the cgroup join failure and exits 125 for a command that ran, not for a sandbox that could not start', async () => {
    const limits = { pids: 256, memoryBytes: 512 * MIB, cpuSeconds: 30, fileSizeBytes: MIB };
    const forged = await sh(limits, "echo 'crucible: cannot enter cgroup /sys/fs/cgroup/x/cgroup.procs' >&2; exit 125");
    expect(forged).toMatchObject({ exitCode: 125, stderr: expect.stringContaining('cannot enter cgroup') });
  });

  // Each executor enters its cgroup its own way: the case for the other kind is not registered, not skipped.
  if (kind === 'local')
    it.runIf(asRoot)('still names a cgroup the command really could not enter as a sandbox that could not start', async () => {
      const limits = { pids: 256, memoryBytes: 512 * MIB };
      // The harness's own join script, given a cgroup.procs that is not there: a real failure to enter.
      const failed = runLimited(limits, limitSupport(true), ['sh', '-c', 'echo never'], ({ argv }) =>
        spawnBounded({
          argv: argv.map((a) => (a.endsWith('/cgroup.procs') ? join(dirs.root, 'gone', 'cgroup.procs') : a)),
          cwd: dirs.workspace,
          env: {},
          timeoutMs: 30_000,
        }),
      );
      await expect(failed).rejects.toThrow(/^crucible: cannot enter cgroup .*gone\/cgroup\.procs$/);
      await expect(failed).rejects.toBeInstanceOf(SandboxSetupError);
    });

  if (kind === 'bwrap')
    it.runIf(asRoot)("enters the cgroup from the host when the executor asks, with no wrapper, and names a failure as the harness's", async () => {
      const limits = { pids: 256, fileSizeBytes: MIB };
      const gone = spawnSync('true').pid as number;
      const failed = runLimited(
        limits,
        limitSupport(true),
        ['bwrap'],
        async ({ argv, enter, rlimits }) => {
          expect(argv).toEqual(['bwrap']);
          expect(rlimits).toEqual({ fileSizeBytes: MIB });
          enter?.(gone);
          throw new Error(`entered a cgroup with ${gone}, a process that is gone`);
        },
        { enterBy: 'caller', rlimitsBy: 'caller' },
      );
      await expect(failed).rejects.toThrow(/^crucible: cannot enter cgroup .*cgroup\.procs: /);
      await expect(failed).rejects.toBeInstanceOf(SandboxSetupError);
    });

  it('stops a fork loop at the pids limit', { timeout: 120_000 }, async () => {
    const arg = uniqueSleepArg();
    const limits = { pids: 64 };
    const result = await sh(limits, `i=0; while [ $i -lt 500 ]; do sleep ${arg} & i=$((i+1)); done; wait`);
    expect(result).toMatchObject({ limitExceeded: 'pids', timedOut: false });
    expect(result.exitCode).not.toBe(0);
    expect(processesWithArg(arg)).toEqual([]);
    await stillUsable(limits);
  });

  it('stops an allocation over the memory limit', { timeout: 120_000 }, async () => {
    const limits = { memoryBytes: 256 * MIB };
    const result = await run(limits, ['python3', '-c', "b = b'x' * (1024 << 20); print(len(b))"]);
    expect(result).toMatchObject({ limitExceeded: 'memory', timedOut: false, stdout: '' });
    expect(result.exitCode).not.toBe(0);
    await stillUsable(limits);
  });

  it('stops a busy loop over the CPU time limit', { timeout: 120_000 }, async () => {
    const limits = { cpuSeconds: 1 };
    const result = await run(limits, ['node', '-e', 'for (;;) {}']);
    expect(result).toMatchObject({ limitExceeded: 'cpu_time', timedOut: false });
    expect(result.exitCode).toBeNull();
    await stillUsable(limits);
  });

  it('stops a write over the file size limit, whether the writer dies of SIGXFSZ or gets EFBIG', { timeout: 120_000 }, async () => {
    const limits = { fileSizeBytes: 4096 };
    const killed = await sh(limits, 'head -c 100000 /dev/zero > big');
    expect(killed).toMatchObject({ limitExceeded: 'file_size', timedOut: false });
    expect(statSync(join(dirs.workspace, 'big')).size).toBe(4096);

    // Python ignores SIGXFSZ, so its write fails with EFBIG instead.
    const refused = await run(limits, ['python3', '-c', "open('big2', 'wb').write(b'x' * 100000)"]);
    expect(refused).toMatchObject({ limitExceeded: 'file_size', timedOut: false });
    expect(refused.exitCode).not.toBe(0);
    await stillUsable(limits);
  });

  describe('without cgroups', () => {
    it('still runs commands, and advertises only what rlimits enforce exactly', async () => {
      const executor = executorWith({ pids: 64, memoryBytes: 256 * MIB }, false);
      expect(executor.capabilities.limits).toEqual(['file_size']);
      expect(await sh({ pids: 64, memoryBytes: 256 * MIB }, 'echo ok', false)).toMatchObject({ exitCode: 0, stdout: 'ok\n' });
    });

    it('falls back to a per-process CPU rlimit', { timeout: 120_000 }, async () => {
      const result = await run({ cpuSeconds: 1 }, ['sh', '-c', 'while :; do :; done'], {}, false);
      expect(result).toMatchObject({ limitExceeded: 'cpu_time', timedOut: false, exitCode: null, signal: 'SIGXCPU' });
    });
  });
});
