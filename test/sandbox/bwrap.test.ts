import { rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutor, SandboxSetupError } from '../../src/infra/sandbox/index.js';
import type { SandboxLayout } from '../../src/infra/sandbox/index.js';
import { parseInitReport } from '../../src/infra/sandbox/bwrap.js';
import { isWithin, toolchainRoots } from '../../src/infra/sandbox/bwrap-allowlist.js';
import { makeSandboxDirs } from './helpers.js';
import type { SandboxDirs } from './helpers.js';

/** What is particular to bwrap; the shared guarantees are in conformance.test.ts. */
describe('bwrap executor', () => {
  let dirs: SandboxDirs;
  let layout: SandboxLayout;

  beforeAll(async () => {
    dirs = await makeSandboxDirs();
    layout = { writable: [dirs.workspace], hidden: [], readOnly: [], home: dirs.home, tmp: dirs.tmp };
  });
  afterAll(async () => {
    if (dirs) await rm(dirs.root, { recursive: true, force: true });
  });

  const exec = (argv: string[], over: Partial<SandboxLayout> = {}, maxOutputBytes?: number) =>
    createExecutor('bwrap', { ...layout, ...over }).exec({ argv, cwd: dirs.workspace, timeoutMs: 30_000, network: 'none', maxOutputBytes });

  it('hands the command only stdio: no descriptor of the harness or of the control channel', async () => {
    const result = await exec(['sh', '-c', 'ls /proc/self/fd']);
    // 3 is the directory ls is reading.
    expect(result.stdout.split('\n').filter(Boolean).sort()).toEqual(['0', '1', '2', '3']);
  });

  it('runs a command without the gateway under the perl init, not node', async () => {
    const result = await exec(['sh', '-c', "tr '\\0' ' ' < /proc/1/cmdline"]);
    expect(result.stdout).toMatch(/^\/(usr\/)?bin\/perl -e /);
  });

  it('reports a command that could not be executed by its errno', async () => {
    await writeFile(join(dirs.workspace, 'not-executable'), '#!/bin/sh\necho ran\n');
    const result = await exec(['./not-executable']);
    expect(result).toMatchObject({ exitCode: 126, signal: null, stdout: '', notStarted: 'EACCES' });
    expect(result.stderr).toContain('not-executable: cannot execute');
  });

  it('runs without capabilities, so the sandbox cannot unmount what hides the host', async () => {
    const result = await exec(['sh', '-c', 'grep CapEff /proc/self/status']);
    expect(result.stdout.trim()).toBe('CapEff:\t0000000000000000');
  });

  it('runs as an unprivileged user named in its own passwd, with HOME as its home', async () => {
    const result = await exec(['sh', '-c', 'id -u; id -un; getent passwd "$(id -un)" | cut -d: -f6; cat /etc/shadow']);
    const [uid, name, home] = result.stdout.trim().split('\n');
    expect(Number(uid)).not.toBe(0);
    expect(name).toBe('crucible');
    expect(home).toBe(dirs.home);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain('/etc/shadow');
  });

  it('shows only the allowlist: system directories, a few /etc entries, toolchains on PATH, and the layout', async () => {
    await writeFile(join(dirs.outside, 'private'), 'not for the sandbox');
    const system = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
    const toolchains = toolchainRoots(
      { path: process.env.PATH ?? '', pyenvRoot: process.env.PYENV_ROOT, execPath: process.execPath, userHome: homedir(), sandboxHome: dirs.home },
      ['/usr'],
    );
    // Written out here rather than imported, so that a widened allowlist fails this test.
    const etc = new Set(
      [
        'passwd',
        'group',
        'hosts',
        'ld.so.cache',
        'ld.so.conf',
        'ld.so.conf.d',
        'alternatives',
        'ssl',
        'ca-certificates',
        'ca-certificates.conf',
        'pki',
        'crypto-policies',
        'localtime',
        'timezone',
        'nsswitch.conf',
        'host.conf',
        'protocols',
        'services',
      ].map((name) => `/etc/${name}`),
    );
    const mounted = [...system, ...toolchains, dirs.workspace, dirs.home, '/tmp', '/dev', '/proc'];
    const allowed = (path: string) =>
      path === '/' ||
      mounted.some((root) => isWithin(path, root) || isWithin(root, path)) ||
      [...etc].some((entry) => isWithin(path, entry)) ||
      /^\/etc\/python3[^/]*(\/|$)/.test(path) ||
      path === '/etc';

    // The root's own file system: every mount point and what bwrap made to hold them.
    const skeleton = await exec(['find', '/', '-xdev']);
    expect(skeleton.exitCode).toBe(0);
    const skeletonPaths = skeleton.stdout.split('\n').filter(Boolean);
    expect(skeletonPaths.filter((path) => !allowed(path))).toEqual([]);

    // Everything, except inside what is allowed wholesale (too big to list) and /proc and /dev.
    const prune = [...system, ...toolchains, '/proc', '/dev'].flatMap((root) => ['-path', root, '-prune', '-o']);
    const everything = await exec(['find', '/', ...prune, '-print'], {}, 16 * 1024 * 1024);
    expect(everything.truncated).toBe(false);
    const everyPath = everything.stdout.split('\n').filter(Boolean);
    expect(everyPath.filter((path) => !allowed(path))).toEqual([]);
    // A host directory appears only as a mount point's parent: the test's own directories live
    // under /var/tmp when the checkout is under /tmp (as CI's clone may be).
    const mountParent = (path: string): boolean => mounted.some((root) => isWithin(root, path));
    for (const absent of ['/var', '/home', '/srv', '/mnt', '/sys', '/run', '/opt', '/etc/shadow', dirs.outside, join(dirs.outside, 'private')].filter(
      (p) => !mountParent(p),
    )) {
      expect(everyPath).not.toContain(absent);
    }
    const listing = await exec(['ls', '-A', '/var']);
    const varEntries = listing.stdout.split('\n').filter(Boolean);
    expect(
      varEntries.every((name) => mountParent(`/var/${name}`)),
      varEntries.join(' '),
    ).toBe(true);
    expect(everyPath).toContain(join(dirs.workspace));

    const outside = await exec(['sh', '-c', `ls '${dirs.outside}'; cat '${join(dirs.outside, 'private')}'; ls -A /root`]);
    expect(outside.stdout).not.toContain('not for the sandbox');
    expect(outside.stderr).toContain(dirs.outside);
    // /root holds at most the mount points of toolchains found there.
    const rootEntries = outside.stdout
      .split('\n')
      .filter(Boolean)
      .map((name) => `/root/${name}`);
    for (const entry of rootEntries) expect(toolchains.some((root) => isWithin(root, entry))).toBe(true);
  });

  it('runs the toolchains it shows: node, npm, python3 with pytest, git', async () => {
    const script = [
      'node -e "console.log(1 + 1)"',
      'npm --version >/dev/null && echo npm-ok',
      'python3 -c "import pytest; print(\'pytest-ok\')"',
      'git init -q repo && git -C repo -c user.email=a@b -c user.name=n commit -q --allow-empty -m x && git -C repo log --format=%s',
    ].join(' && ');
    const result = await exec(['sh', '-c', script]);
    expect(result).toMatchObject({ exitCode: 0, stdout: '2\nnpm-ok\npytest-ok\nx\n' });
    await rm(join(dirs.workspace, 'repo'), { recursive: true, force: true });
  });

  it('raises a SandboxSetupError, not a failed command, when the sandbox cannot be built', async () => {
    // Hiding node's own directory leaves bwrap nothing to run.
    const failure = exec(['true'], { hidden: [dirname(process.execPath)] });
    await expect(failure).rejects.toBeInstanceOf(SandboxSetupError);
    await expect(failure).rejects.toThrow(/bwrap could not start the sandbox/);
  });

  it('refuses a layout whose writable or readOnly path does not exist', async () => {
    await expect(exec(['true'], { readOnly: [join(dirs.root, 'missing')] })).rejects.toThrow(/readOnly path does not exist/);
    await expect(exec(['true'], { writable: ['relative/path'] })).rejects.toThrow(/must be absolute/);
  });

  it("refuses network 'gateway' without a gateway in the layout", async () => {
    const executor = createExecutor('bwrap', layout);
    await expect(executor.exec({ argv: ['true'], cwd: dirs.workspace, timeoutMs: 30_000, network: 'gateway' })).rejects.toThrow(/needs layout.gateway/);
  });

  it('shares the host network only in host mode', async () => {
    const interfaces = async (network: 'none' | 'host') => {
      const result = await createExecutor('bwrap', layout).exec({
        argv: ['node', '-e', 'console.log(Object.keys(require("os").networkInterfaces()).length)'],
        cwd: dirs.workspace,
        timeoutMs: 30_000,
        network,
      });
      return Number(result.stdout.trim());
    };
    expect(await interfaces('none')).toBe(1);
    // This machine may have only loopback too; host mode must at least see every host interface.
    const { networkInterfaces } = await import('node:os');
    expect(await interfaces('host')).toBe(Object.keys(networkInterfaces()).length);
  });
});

describe('parseInitReport', () => {
  it('believes nothing of a channel that carries what the init never writes, and says what it was', () => {
    const extra = ['{"event":"ready"}', '{"event":"exit","exitCode":null,"signal":9}', '{"event":"exit","exitCode":0,"signal":null}', ''].join('\n');
    expect(parseInitReport(extra)).toEqual({ ready: true, forged: expect.stringContaining('2 exit records') });
    const garbage = ['{"event":"ready"}', 'garbage', ''].join('\n');
    expect(parseInitReport(garbage).forged).toContain('a line the init never writes');
    // Valid JSON, a field the init never adds.
    const padded = '{"event":"ready"}\n{"event":"exit","exitCode":0,"signal":null,"by":"me"}\n';
    expect(parseInitReport(padded)).toMatchObject({ forged: expect.stringContaining('"by":"me"') });
    expect(parseInitReport('{"event":"ready"}\n{"event":"exit","setupError":"x"}\n{"event":"exit","exitCode":0,"signal":null}\n').setupError).toBeUndefined();
    expect(parseInitReport('{"event":"ready"}\n{"event":"exit","exitCode"').forged).toContain('unfinished line');
    expect(parseInitReport('{"event":"exit","exitCode":0,"signal":null}\n').forged).toContain('ready line');
  });

  it("reads the perl init's numbers: a signal's, an errno's, and its own setup failure", () => {
    const text = ['{"event":"ready"}', '{"event":"exit","exitCode":null,"signal":9}', ''].join('\n');
    expect(parseInitReport(text)).toEqual({ ready: true, exit: { exitCode: null, signal: 'SIGKILL' } });
    const missing = '{"event":"ready"}\n{"event":"exit","exitCode":127,"signal":null,"errno":2}\n';
    expect(parseInitReport(missing)).toEqual({ ready: true, exit: { exitCode: 127, signal: null, notStarted: 'ENOENT' } });
    const failed = '{"event":"ready"}\n{"event":"exit","setupError":"setrlimit 1: errno 1"}\n';
    expect(parseInitReport(failed)).toEqual({ ready: true, setupError: 'setrlimit 1: errno 1' });
  });

  it('reports nothing for a sandbox that never started', () => {
    expect(parseInitReport('')).toEqual({ ready: false });
  });
});
