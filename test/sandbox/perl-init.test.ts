import { spawn } from 'node:child_process';
import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { encodePerlOrders, errnoName, PERL_INIT, prctlSyscall } from '../../src/infra/sandbox/perl-init.js';
import type { PerlOrders } from '../../src/infra/sandbox/perl-init.js';

const prctl = prctlSyscall() ?? 0;

/** The perl init on its own (no bwrap): its orders on fd 3, its reports read back from there. */
function runInit(orders: Omit<PerlOrders, 'prctlSyscall'> & { prctlSyscall?: number }): Promise<{ status: number | null; stdout: string; control: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('perl', ['-e', PERL_INIT], { stdio: ['ignore', 'pipe', 'inherit', 'pipe'], env: {} });
    let stdout = '';
    let control = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const channel = child.stdio[3];
    if (!(channel instanceof Duplex)) throw new Error('fd 3 is not a socket');
    channel.on('data', (chunk: Buffer) => (control += chunk.toString()));
    channel.write(encodePerlOrders({ prctlSyscall: prctl, ...orders }));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, control }));
  });
}

describe('perl init', () => {
  it('runs the command with exactly the environment of its orders', async () => {
    const run = await runInit({ argv: ['env', '-0'], env: { PATH: '/usr/bin:/bin', ODD: 'a=b\nc' } });
    expect(run.stdout.split('\0').filter(Boolean).sort()).toEqual(['ODD=a=b\nc', 'PATH=/usr/bin:/bin']);
    expect(run.control).toBe('{"event":"ready"}\n{"event":"exit","exitCode":0,"signal":null}\n');
  });

  it('reports an rlimit it cannot set as its own failure, and never starts the command', async () => {
    // No such syscall: prlimit64 fails with ENOSYS.
    const run = await runInit({ argv: ['sh', '-c', 'echo ran'], env: { PATH: '/usr/bin:/bin' }, rlimits: { fileSizeBytes: 4096 }, prlimitSyscall: 100_000 });
    expect(run.stdout).toBe('');
    expect(run.control).toContain('"setupError":"setrlimit 1: errno 38"');
    expect(run.status).toBe(125);
  });

  it('refuses to start the command when it cannot make itself non-dumpable (the attack itself is in bwrap-supervisor.test.ts)', async () => {
    const refused = await runInit({ argv: ['sh', '-c', 'echo ran'], env: { PATH: '/usr/bin:/bin' }, prctlSyscall: 100_000 });
    expect(refused.stdout).toBe('');
    expect(refused.control).toContain('"setupError":"prctl PR_SET_DUMPABLE: errno 38"');
    expect(refused.status).toBe(125);
  });

  it('starts its helper first, hands it the pipe to say it listens on, and the command only after', async () => {
    const helper = ['sh', '-c', 'echo helper-up >&2; echo listening >&"$0"'];
    const run = await runInit({ argv: ['echo', 'command-ran'], env: {}, helper });
    expect(run.stdout).toBe('command-ran\n');
    expect(run.control).toBe('{"event":"ready"}\n{"event":"exit","exitCode":0,"signal":null}\n');
    const silent = await runInit({ argv: ['echo', 'command-ran'], env: {}, helper: ['sh', '-c', 'exit 3'] });
    expect(silent.stdout).toBe('');
    expect(silent.control).toContain('"setupError":"the gateway forwarder did not start');
  });

  it('refuses orders it could not carry: a NUL byte in an argument', () => {
    expect(() => encodePerlOrders({ argv: ['echo', 'a\0b'], env: {}, prctlSyscall: prctl })).toThrow(/NUL byte/);
  });

  it('names the errnos it reports by number', () => {
    expect(errnoName(2)).toBe('ENOENT');
    expect(errnoName(13)).toBe('EACCES');
    expect(errnoName(99_999)).toBe('errno 99999');
  });
});
