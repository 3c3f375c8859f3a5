import { spawn, spawnSync } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTAINER_OWNER_LABEL, detectDocker, dockerClient, ownerLabelValue } from '../../src/infra/docker/index.js';
import { createExecutor, SandboxSetupError } from '../../src/infra/sandbox/index.js';
import type { ExecRequest, ExecResult, Executor, SandboxLayout } from '../../src/infra/sandbox/index.js';
import { makeSandboxDirs, processesWithArg, uniqueSleepArg } from './helpers.js';
import type { SandboxDirs } from './helpers.js';

/**
 * What only the docker executor promises, beyond the conformance suite: the container's own
 * hardening, limits the engine enforces, task images, and no container outliving its executor or
 * its Crucible process. Needs a Docker engine; without one every test fails with the fix.
 */
const BUSYBOX_IMAGE = 'crucible-test/busybox:1';
const BUSYBOX_APPLETS = ['sh', 'ls', 'cat', 'echo', 'id', 'yes', 'sleep', 'kill', 'test', 'wget', 'touch', 'stat', 'seq', 'head', 'grep', 'mkdir', 'tr'];
const GATEWAY_PORT = 18_432;

let dirs: SandboxDirs;
let layout: SandboxLayout;
const executors: Executor[] = [];

beforeAll(async () => {
  const docker = await detectDocker();
  if (!docker.ok) throw new Error(`the docker executor's tests need a Docker engine: ${docker.reason}. Fix: ${docker.fix}`);
  dirs = await makeSandboxDirs();
  layout = { writable: [dirs.workspace], hidden: [dirs.taskSet], readOnly: [dirs.repo], home: dirs.home, tmp: dirs.tmp };
});

afterAll(async () => {
  await Promise.all(executors.map((executor) => executor.close()));
  if (dirs) await rm(dirs.root, { recursive: true, force: true });
});

function executor(extra: Partial<SandboxLayout> = {}): Executor {
  const made = createExecutor('docker', { ...layout, ...extra }, { killGraceMs: 300 });
  executors.push(made);
  return made;
}

function sh(target: Executor, script: string, extra: Partial<ExecRequest> = {}): Promise<ExecResult> {
  return target.exec({ argv: ['sh', '-c', script], cwd: dirs.workspace, timeoutMs: 30_000, network: 'none', ...extra });
}

/** Containers of this process (the owner label), or of the process `pid`. */
async function ownedContainers(pid: number = process.pid): Promise<string[]> {
  const listed = await dockerClient().listContainers({ all: true, filters: { label: [`${CONTAINER_OWNER_LABEL}=${ownerLabelValue(pid)}`] } });
  return listed.map((info) => info.Id);
}

/** A root of /bin/busybox and its applets, imported once and kept under a stable tag. */
async function busyboxImage(): Promise<string> {
  const existing = spawnSync('docker', ['image', 'inspect', '--format', '{{.Id}}', BUSYBOX_IMAGE], { encoding: 'utf8' });
  if (existing.status === 0) return existing.stdout.trim();
  const root = await mkdtemp(join(tmpdir(), 'crucible-busybox-'));
  try {
    await mkdir(join(root, 'bin'));
    await copyFile('/bin/busybox', join(root, 'bin', 'busybox'));
    await chmod(join(root, 'bin', 'busybox'), 0o755);
    for (const applet of BUSYBOX_APPLETS) await symlink('busybox', join(root, 'bin', applet));
    for (const dir of ['etc', 'tmp', 'proc', 'sys', 'dev']) await mkdir(join(root, dir));
    await writeFile(join(root, 'etc', 'os-release'), 'ID=crucible-busybox\n');
    const made = spawnSync('sh', ['-c', `tar -C '${root}' -c . | docker import --change 'ENV PATH=/bin' - ${BUSYBOX_IMAGE}`], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`docker import of the busybox root failed: ${made.stderr}`);
    return made.stdout.trim();
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

describe('docker executor', () => {
  it('runs with a read-only root, a private writable /tmp, no capabilities and no new privileges', async () => {
    const result = await sh(
      executor(),
      [
        'if touch /planted 2>/dev/null; then echo root=writable; else echo root=read-only; fi',
        'echo private > /tmp/crucible-docker-probe && echo "tmp=$(cat /tmp/crucible-docker-probe)"',
        'echo "tmpfs=$(stat -f -c %T /tmp)"',
        'grep -E "^(CapEff|CapPrm|CapBnd|NoNewPrivs):" /proc/self/status | tr -d "\\t"',
      ].join('\n'),
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('root=read-only');
    expect(result.stdout).toContain('tmp=private');
    expect(result.stdout).toContain('tmpfs=tmpfs');
    expect(result.stdout).toContain('CapEff:0000000000000000');
    expect(result.stdout).toContain('CapPrm:0000000000000000');
    expect(result.stdout).toContain('CapBnd:0000000000000000');
    expect(result.stdout).toContain('NoNewPrivs:1');
    await expect(stat('/tmp/crucible-docker-probe')).rejects.toThrow();
  });

  it('leaves the files it writes in the workspace owned by the invoking user', async () => {
    const result = await sh(executor(), 'echo x > owned-file && mkdir -p owned-dir && id -u && id -g');
    expect(result.stdout).toBe(`${process.getuid?.()}\n${process.getgid?.()}\n`);
    for (const name of ['owned-file', 'owned-dir']) {
      const info = await stat(join(dirs.workspace, name));
      expect({ uid: info.uid, gid: info.gid }).toEqual({ uid: process.getuid?.(), gid: process.getgid?.() });
    }
  });

  it('enforces pids: forks past the limit fail and are reported', async () => {
    const limited = executor({ limits: { pids: 20 } });
    const result = await sh(limited, 'for i in $(seq 1 60); do sleep 30 & done; wait', { timeoutMs: 20_000 });
    expect(result.limitExceeded).toBe('pids');
    expect(result.timedOut).toBe(false);
    // The container is still usable afterwards: what the command started is gone.
    const after = await sh(limited, 'cat /sys/fs/cgroup/pids/pids.current 2>/dev/null || cat /sys/fs/cgroup/pids.current');
    expect(after.exitCode).toBe(0);
    expect(after.limitExceeded).toBeUndefined();
    expect(Number(after.stdout.trim())).toBeLessThan(20);
  });

  it('enforces memory without swap: the OOM kill is reported', async () => {
    const limited = executor({ limits: { memoryBytes: 64 * 1024 * 1024 } });
    const hog = 'const kept = []; for (;;) kept.push(Buffer.alloc(8 << 20, 1));';
    const result = await limited.exec({ argv: ['node', '-e', hog], cwd: dirs.workspace, timeoutMs: 30_000, network: 'none' });
    expect(result.limitExceeded).toBe('memory');
    expect(result.signal).toBe('SIGKILL');
  });

  it('enforces CPU time for the whole command, and file size', async () => {
    const limited = executor({ limits: { cpuSeconds: 1, fileSizeBytes: 1024 * 1024 } });
    const spin = await sh(limited, 'yes > /dev/null & yes > /dev/null & wait', { timeoutMs: 20_000 });
    expect(spin.limitExceeded).toBe('cpu_time');
    expect(spin.timedOut).toBe(false);
    const big = await sh(limited, 'head -c 2000000 /dev/zero > big');
    expect(big.limitExceeded).toBe('file_size');
  });

  it('runs a task image instead of the host view, with its cpus quota enforced', async () => {
    const imageId = await busyboxImage();
    // A tenth of a CPU: even on a loaded machine two spinners get more than that, so the quota bites.
    const task = executor({ environment: { imageId, cpus: 0.1 } });
    const result = await sh(
      task,
      [
        'cat /etc/os-release',
        'if test -e /usr/bin/node; then echo host=visible; else echo host=absent; fi',
        'echo "path=$PATH"',
        'echo task > from-image',
        // cgroup v2 has cpu.max ("quota period"); v1 one file each in the cpu hierarchy.
        'if [ -e /sys/fs/cgroup/cpu.max ]; then echo "quota=$(tr " " / < /sys/fs/cgroup/cpu.max)"; ' +
          'else echo "quota=$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us)/$(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)"; fi',
        'yes > /dev/null & one=$!; yes > /dev/null & two=$!; sleep 1; kill $one $two',
        'grep nr_throttled /sys/fs/cgroup/cpu/cpu.stat 2>/dev/null || grep nr_throttled /sys/fs/cgroup/cpu.stat',
      ].join('\n'),
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('ID=crucible-busybox');
    expect(result.stdout).toContain('host=absent');
    expect(result.stdout).toContain('path=/bin');
    expect(result.stdout).toContain('quota=10000/100000');
    const throttled = Number(/nr_throttled (\d+)/.exec(result.stdout)?.[1]);
    expect(throttled).toBeGreaterThan(0);
    expect(task.containerImageId?.()).toBe(imageId);
  });

  it('bridges the gateway into a task image that has no node of its own', async () => {
    const imageId = await busyboxImage();
    const socketPath = join(dirs.root, 'gw.sock');
    const gateway: Server = createServer((req, res) => res.end(`gateway saw ${req.url}`));
    await new Promise<void>((done) => gateway.listen(socketPath, done));
    try {
      const task = executor({ environment: { imageId }, gateway: { socketPath, port: GATEWAY_PORT } });
      const result = await sh(task, `wget -q -O - http://127.0.0.1:${GATEWAY_PORT}/v1/models`, { network: 'gateway' });
      expect(result.stdout).toBe('gateway saw /v1/models');
      const none = await sh(task, `wget -q -T 2 -O - http://127.0.0.1:${GATEWAY_PORT}/v1/models || echo unreachable`);
      expect(none.stdout).toContain('unreachable');
    } finally {
      gateway.close();
    }
  });

  it('runs concurrent commands in one container without one ending the other', async () => {
    const shared = executor();
    await sh(shared, 'true');
    const slow = sh(shared, 'sleep 3; echo slow done');
    // Each quick command ends (and cleans up after itself) while other commands are still being
    // entered into the container or running: none of theirs may be taken for its leftovers.
    for (let round = 0; round < 4; round++) {
      const leftover = uniqueSleepArg();
      const [quick, entering] = await Promise.all([
        sh(shared, `sleep ${leftover} >/dev/null 2>&1 & echo quick done`),
        sh(shared, 'sleep 0.3; echo entering done'),
      ]);
      expect(quick).toMatchObject({ exitCode: 0, stdout: 'quick done\n' });
      expect(entering).toMatchObject({ exitCode: 0, stdout: 'entering done\n', signal: null });
      expect(processesWithArg(leftover)).toEqual([]);
    }
    expect(await slow).toMatchObject({ exitCode: 0, stdout: 'slow done\n', signal: null });
  });

  it('ends a command aborted before it started, and keeps the container for the next one', async () => {
    const target = executor();
    const before = (await sh(target, 'cat /etc/hostname')).stdout;
    const controller = new AbortController();
    controller.abort();
    const aborted = await sh(target, 'sleep 30', { signal: controller.signal });
    expect(aborted).toMatchObject({ exitCode: null, timedOut: false });
    expect((await sh(target, 'cat /etc/hostname')).stdout).toBe(before);
  });

  it('still ends a command that killed its own supervisor, by removing the container', async () => {
    const target = executor();
    const before = (await sh(target, 'cat /etc/hostname')).stdout;
    const stray = uniqueSleepArg();
    const result = await sh(target, `kill -9 $PPID; sleep ${stray}`, { timeoutMs: 1000 });
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: true });
    expect(processesWithArg(stray)).toEqual([]);
    const after = await sh(target, 'cat /etc/hostname');
    expect(after.exitCode).toBe(0);
    expect(after.stdout).not.toBe(before);
  });

  it("believes only the supervisor's own status: an earlier mark the command printed is a forged report, an exit it claimed is not read", async () => {
    const target = executor();
    const mark = String.raw`\000crucible-exec-status\000`;
    const setup = await sh(target, `printf '${mark}{"setupError":"no space left on device"}\n' >&2; exit 3`);
    expect(setup).toMatchObject({ exitCode: 3, signal: null, forgedReport: expect.stringContaining('status mark') });
    const exit = await sh(target, `printf '${mark}{"exitCode":null,"signal":"SIGKILL"}\n' >&2; exit 4`);
    expect(exit).toMatchObject({ exitCode: 4, signal: null, forgedReport: expect.stringContaining('status mark') });
    const honest = await sh(target, 'echo fine >&2; exit 5');
    expect(honest).toMatchObject({ exitCode: 5, stderr: 'fine\n' });
    expect(honest.forgedReport).toBeUndefined();
  });

  it('refuses a cwd the container does not show, as a setup error', async () => {
    await expect(sh(executor(), 'true', { cwd: dirs.outside })).rejects.toBeInstanceOf(SandboxSetupError);
  });

  it('reports an image the engine does not have as a setup error naming it', async () => {
    const missing = `sha256:${'0'.repeat(64)}`;
    const failure = sh(executor({ environment: { imageId: missing } }), 'true');
    await expect(failure).rejects.toBeInstanceOf(SandboxSetupError);
    await expect(failure).rejects.toThrow(/image sha256:0{64}: no such image/i);
  });

  it('close() removes every container of the executor, and may be called twice', async () => {
    const before = new Set(await ownedContainers());
    const socketPath = join(dirs.root, 'gw-close.sock');
    const gateway: Server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((done) => gateway.listen(socketPath, done));
    try {
      const target = createExecutor('docker', { ...layout, gateway: { socketPath, port: GATEWAY_PORT } });
      await sh(target, 'true');
      await sh(target, 'true', { network: 'gateway' });
      const mine = (await ownedContainers()).filter((id) => !before.has(id));
      expect(mine).toHaveLength(2);
      await target.close();
      await target.close();
      const left = await ownedContainers();
      expect(left.filter((id) => mine.includes(id))).toEqual([]);
      await expect(sh(target, 'true')).rejects.toThrow(/close/);
    } finally {
      gateway.close();
    }
  });

  // Runs the built module (dist/, as the CLI tests do; `npm test` builds it first).
  it('leaves no container behind when Crucible is killed with SIGKILL mid-command', async () => {
    const root = await mkdtemp(join(dirs.root, 'crash-'));
    const driver = resolve('test/sandbox/helpers/docker-crash-driver.mjs');
    const child = spawn(process.execPath, [driver, resolve('dist/infra/sandbox/index.js'), root], { stdio: ['ignore', 'pipe', 'inherit'] });
    const running = await new Promise<boolean>((done) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('running') && done(true));
      child.once('exit', () => done(false));
    });
    expect(running).toBe(true);
    const pid = child.pid ?? -1;
    expect(await ownedContainers(pid)).toHaveLength(1);
    child.kill('SIGKILL');
    // The engine notices the closed attach, the keep-alive sees EOF, and the container removes itself.
    let left = await ownedContainers(pid);
    for (let poll = 0; poll < 150 && left.length > 0; poll++) {
      await sleep(100);
      left = await ownedContainers(pid);
    }
    expect(left).toEqual([]);
    // Its files directory is for the next Crucible process to sweep; this test cleans up itself.
    for (const name of await readdir(tmpdir())) {
      if (name.startsWith(`crucible-docker-${pid}-`)) await rm(join(tmpdir(), name), { recursive: true, force: true });
    }
  });
});
