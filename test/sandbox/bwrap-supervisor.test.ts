import { mkdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/infra/sandbox/index.js';
import type { NetworkMode, SandboxLayout } from '../../src/infra/sandbox/index.js';
import { FORGED_INIT_REPORTS, stealInitChannelPython } from '../../src/domain/redteam/supervisor-channel.js';
import { makeSandboxDirs } from './helpers.js';
import type { SandboxDirs } from './helpers.js';

/**
 * The command under bwrap runs as the same user as the sandbox's init, whose fd 3 carries the
 * report the harness believes. A real attack, from inside: every way to that descriptor is
 * refused (the init is non-dumpable), and the harness reads the init's own report.
 */
describe('the bwrap init’s report channel, attacked from inside', () => {
  let dirs: SandboxDirs;
  let layout: SandboxLayout;
  let gateway: Server;

  beforeAll(async () => {
    dirs = await makeSandboxDirs();
    const socketPath = join(dirs.root, 'gateway', 'gateway.sock');
    await mkdir(join(dirs.root, 'gateway'));
    gateway = createServer((_req, res) => res.end('gateway'));
    await new Promise<void>((resolve) => gateway.listen(socketPath, resolve));
    layout = { writable: [dirs.workspace], hidden: [], readOnly: [], home: dirs.home, tmp: dirs.tmp, gateway: { socketPath, port: 18_432 } };
  });
  afterAll(async () => {
    gateway?.close();
    if (dirs) await rm(dirs.root, { recursive: true, force: true });
  });

  const attack = (lines: readonly string[], network: NetworkMode, exitCode: number) =>
    createExecutor('bwrap', layout).exec({
      argv: ['python3', '-c', `${stealInitChannelPython(lines)}\nimport sys\nsys.exit(${exitCode})`],
      cwd: dirs.workspace,
      timeoutMs: 60_000,
      network,
    });

  const seenBy = (stderr: string): Record<string, unknown> => {
    const line = stderr.split('\n').find((l) => l.startsWith('crucible-redteam-init-channel '));
    expect(line, stderr).toBeDefined();
    return JSON.parse((line ?? '').slice('crucible-redteam-init-channel '.length)) as Record<string, unknown>;
  };

  it.each(Object.entries(FORGED_INIT_REPORTS))(
    '%s: pidfd_getfd, /proc/1/fd, /proc/1/mem and ptrace are refused; the init’s report stands',
    async (_name, lines) => {
      for (const network of ['none', 'gateway'] as const) {
        const result = await attack(lines, network, 3);
        const seen = seenBy(result.stderr);
        expect(seen, network).toEqual({ pidfd_getfd: 'EPERM', proc_fd: 'EACCES', proc_fd_link: 'EACCES', proc_mem: 'EACCES', ptrace: 'EPERM' });
        expect(result, network).toMatchObject({ exitCode: 3, signal: null, timedOut: false });
        expect(result.forgedReport, network).toBeUndefined();
      }
    },
  );

  it('the honest command beside it: pidfd_open on itself works, and its report is read as it is', async () => {
    const result = await createExecutor('bwrap', layout).exec({
      argv: ['python3', '-c', 'import os, sys; fd = os.pidfd_open(os.getpid()); print(sorted(os.listdir("/proc/self/fd"))[:3]); sys.exit(0)'],
      cwd: dirs.workspace,
      timeoutMs: 60_000,
      network: 'none',
    });
    expect(result).toMatchObject({ exitCode: 0, signal: null, stderr: '' });
    expect(result.forgedReport).toBeUndefined();
  });
});
