import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxTraits, SandboxSetupError } from '../../../src/infra/sandbox/index.js';
import type { ExecRequest, ExecResult, Executor, NetworkMode, SandboxKind, SandboxLayout } from '../../../src/infra/sandbox/index.js';
import { isAlive, makeSandboxDirs, processesWithArg, uniqueSleepArg, waitFor } from '../helpers.js';
import type { SandboxDirs } from '../helpers.js';

/** What differs between executors that all keep the contract. */
export interface ConformanceExpectations {
  /** The PATH commands get: the host's where its toolchain is shown, else the image's. */
  path: string | undefined;
  /** The host's toolchain is shown (its variables, PYENV_ROOT, pass through). */
  hostToolchain: boolean;
  hostPaths: boolean;
  networkModes: readonly NetworkMode[];
}

/** Port the gateway appears on inside the sandbox; free there, whatever the host uses. */
const GATEWAY_PORT = 18_431;

/**
 * One contract, every executor. Guarantees all executors give are asserted for each; what only a
 * real sandbox gives is asserted where `capabilities` claims it, and where it does not, the test
 * checks the claim is honest (the property really is missing).
 */
export function describeConformance(label: string, kind: SandboxKind, create: (layout: SandboxLayout) => Executor, expected: ConformanceExpectations): void {
  describe(label, () => {
    let dirs: SandboxDirs;
    let layout: SandboxLayout;
    let executor: Executor;
    let hostServer: Server;
    let hostPort: number;
    let gatewayServer: Server;

    beforeAll(async () => {
      dirs = await makeSandboxDirs();
      const socketPath = join(dirs.root, 'gateway', 'gateway.sock');
      layout = {
        writable: [dirs.workspace],
        hidden: [dirs.taskSet, dirs.secretFile],
        // The source repository: readable, not writable (the allowlist shows nothing else of the host).
        readOnly: [dirs.baseline, dirs.repo],
        home: dirs.home,
        tmp: dirs.tmp,
        gateway: { socketPath, port: GATEWAY_PORT },
      };
      executor = create(layout);
      hostServer = await listen(
        createServer((_req, res) => res.end('host service')),
        { port: 0, host: '127.0.0.1' },
      );
      hostPort = (hostServer.address() as AddressInfo).port;
      await mkdir(join(dirs.root, 'gateway'));
      gatewayServer = await listen(
        createServer((req, res) => res.end(`gateway saw ${req.method} ${req.url}`)),
        { path: socketPath },
      );
    });

    afterAll(async () => {
      await executor?.close();
      hostServer?.close();
      gatewayServer?.close();
      if (dirs) await rm(dirs.root, { recursive: true, force: true });
    });

    const sh = (script: string, extra: Partial<ExecRequest> = {}): Promise<ExecResult> =>
      executor.exec({ argv: ['sh', '-c', script], cwd: dirs.workspace, timeoutMs: 30_000, network: 'none', ...extra });
    const node = (script: string, extra: Partial<ExecRequest> = {}): Promise<ExecResult> =>
      executor.exec({ argv: ['node', '-e', script], cwd: dirs.workspace, timeoutMs: 30_000, network: 'none', ...extra });

    it('reports exit codes', async () => {
      const result = await sh('echo out; echo err >&2; exit 3');
      expect(result).toMatchObject({ exitCode: 3, signal: null, stdout: 'out\n', stderr: 'err\n', truncated: false, timedOut: false });
    });

    it('reports death by a signal as the signal, not as an exit code', async () => {
      const result = await sh('kill -9 $$');
      expect(result).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: false });
      // The exit code bwrap would have made of it stays an exit code.
      expect(await sh('exit 137')).toMatchObject({ exitCode: 137, signal: null });
    });

    it('feeds stdin and runs in cwd', async () => {
      const result = await sh('cat; pwd', { stdin: 'hello\n' });
      expect(result.stdout).toBe(`hello\n${dirs.workspace}\n`);
      expect((await sh('pwd', { cwd: dirs.repo })).stdout).toBe(`${dirs.repo}\n`);
    });

    it('reports a missing command as a shell would', async () => {
      const result = await executor.exec({ argv: ['no-such-command-xyz'], cwd: dirs.workspace, timeoutMs: 30_000, network: 'none' });
      expect(result).toMatchObject({ exitCode: 127, signal: null });
      expect(result.stderr).toContain('no-such-command-xyz: command not found');
      // The executor's own evidence says so, out of band: the line above is for people.
      expect(result.notStarted).toBe('ENOENT');
    });

    it("never takes a command's words for its own report: printing 'command not found' and exiting 127 is a command that ran", async () => {
      const forged = await sh("echo 'crucible: no-such-command-xyz: command not found' >&2; exit 127");
      expect(forged).toMatchObject({ exitCode: 127, signal: null });
      expect(forged.notStarted).toBeUndefined();
      if (kind !== 'docker') return;
      // docker's status travels on stderr: a forged status line, made the last by killing the
      // supervisor, is not believed (no SandboxSetupError, no notStarted), the command counts as killed.
      const mark = String.raw`\000crucible-exec-status\000`;
      for (const claim of ['{"setupError":"no space left on device"}', '{"exitCode":127,"signal":null,"notStarted":"ENOENT"}']) {
        const killed = await sh(`printf '${mark}%s\\n' '${claim}' >&2; kill -9 $PPID; exit 0`);
        expect(killed.notStarted, claim).toBeUndefined();
        expect(killed.exitCode, claim).toBeNull();
      }
    });

    it('builds the environment from scratch', async () => {
      process.env.CRUCIBLE_SANDBOX_SENTINEL = 'must-not-leak';
      try {
        const result = await node('process.stdout.write(JSON.stringify(process.env))', { env: { EXTRA: 'from request' } });
        const env = JSON.parse(result.stdout) as Record<string, string>;
        const names = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TERM', 'EXTRA', ...(expected.hostToolchain && process.env.PYENV_ROOT ? ['PYENV_ROOT'] : [])];
        expect(Object.keys(env).sort()).toEqual(names.sort());
        expect(env).toMatchObject({ PATH: expected.path, HOME: dirs.home, LANG: 'C.UTF-8', EXTRA: 'from request' });
        expect(env.TMPDIR).toBe(kind === 'local' ? dirs.tmp : '/tmp');
      } finally {
        delete process.env.CRUCIBLE_SANDBOX_SENTINEL;
      }
    });

    it('bounds each output stream, keeps the head and flags truncation', async () => {
      const result = await sh("head -c 200000 /dev/zero | tr '\\0' a; head -c 5000 /dev/zero | tr '\\0' b >&2; echo done >&2", {
        maxOutputBytes: 1000,
      });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe('a'.repeat(1000));
      expect(result.stderr).toBe('b'.repeat(1000));
      expect(result.truncated).toBe(true);
    });

    it('on timeout kills the whole tree, including a setsid grandchild that ignores SIGTERM', async () => {
      const { script, args } = stubbornTree();
      const running = sh(script, { timeoutMs: 2000 });
      const pids = await watchTree(args, running);
      const result = await running;

      expect(result.timedOut).toBe(true);
      expect(result.exitCode).toBeNull();
      expect(result.stdout).toBe('started\n');
      expect(pids.size).toBe(args.length);
      for (const pid of pids.values()) expect(isAlive(pid)).toBe(false);
      for (const arg of args) expect(processesWithArg(arg)).toEqual([]);
    });

    it('on abort kills the whole tree like a timeout, but does not call it one', async () => {
      const { script, args } = stubbornTree();
      const controller = new AbortController();
      const running = sh(script, { signal: controller.signal });
      const pids = await watchTree(args, running);
      controller.abort();
      const result = await running;

      expect(result.timedOut).toBe(false);
      expect(result.exitCode).toBeNull();
      expect(pids.size).toBe(args.length);
      for (const pid of pids.values()) expect(isAlive(pid)).toBe(false);
    });

    it('leaves nothing running once the command exits', async () => {
      const inGroup = uniqueSleepArg();
      const escaped = uniqueSleepArg();
      // One background job stays in the group; another leaves it and keeps stdout open. Reading
      // stdin first keeps the command alive until the executor has taken note of its stdio.
      const script = [
        'read -r _',
        `sleep ${inGroup} >/dev/null 2>&1 &`,
        `setsid sh -c 'touch escaped.started; exec sleep ${escaped}' &`,
        'while [ ! -e escaped.started ]; do sleep 0.01; done',
        'echo done',
      ].join('\n');
      const result = await sh(script, { stdin: 'go\n' });
      expect(result).toMatchObject({ exitCode: 0, stdout: 'done\n', timedOut: false });
      expect(processesWithArg(inGroup)).toEqual([]);
      expect(processesWithArg(escaped)).toEqual([]);
      await rm(join(dirs.workspace, 'escaped.started'), { force: true });
    });

    it("states what it enforces: its kind's capabilities, with the paths and networks its engine allows", () => {
      const { needsBwrap: _bwrap, needsDockerEngine: _engine, ...promised } = sandboxTraits(kind);
      expect(executor.capabilities).toMatchObject({ ...promised, hostPaths: expected.hostPaths, networkModes: expected.networkModes });
      expect(executor.capabilities.limits).toBeInstanceOf(Array);
    });

    it("with network 'none' reaches nothing, not the host's loopback nor the gateway's socket", async () => {
      const result = await node(probeNetwork(hostPort, undefined, layout.gateway?.socketPath));
      const probe = JSON.parse(result.stdout) as NetworkProbe;
      if (executor.capabilities.network) {
        expect(probe.host).toMatch(/^error/);
        expect(probe.gatewaySocket).toMatch(/^error/);
        expect(probe.interfaces).toEqual(['lo']);
      } else {
        expect(probe.host).toBe('host service');
        expect(probe.gatewaySocket).toBe('gateway saw GET /direct');
      }
    });

    it("with network 'gateway' reaches the gateway at 127.0.0.1:<port> and nothing else, or refuses it when it cannot bridge", async () => {
      if (!executor.capabilities.networkModes.includes('gateway')) {
        await expect(node('0', { network: 'gateway' })).rejects.toBeInstanceOf(SandboxSetupError);
        return;
      }
      const result = await node(probeNetwork(hostPort, GATEWAY_PORT), { network: 'gateway' });
      const probe = JSON.parse(result.stdout) as NetworkProbe;
      if (executor.capabilities.network) {
        expect(probe.gateway).toBe('gateway saw GET /v1/models');
        expect(probe.host).toMatch(/^error/);
        expect(probe.interfaces).toEqual(['lo']);
      } else {
        // No bridge: the caller hands local children the gateway's TCP URL, and everything is reachable.
        expect(probe.host).toBe('host service');
      }
    });

    it('lets writes succeed only in the writable roots', async () => {
      const targets = {
        workspace: join(dirs.workspace, 'w'),
        home: join(dirs.home, 'w'),
        privateTmp: '/tmp/crucible-w',
        repo: join(dirs.repo, 'w'),
        outside: join(dirs.outside, 'w'),
      };
      const script = Object.entries(targets)
        .map(([name, path]) => `if echo x > '${path}' 2>/dev/null; then echo ${name}=ok; else echo ${name}=denied; fi`)
        .join('\n');
      const outcome = parseLines((await sh(`${script}\necho "readme=$(cat '${join(dirs.repo, 'README')}')"`)).stdout);
      expect(outcome).toMatchObject({ workspace: 'ok', home: 'ok', privateTmp: 'ok', readme: 'the repo' });
      if (executor.capabilities.filesystem) {
        expect(outcome).toMatchObject({ repo: 'denied', outside: 'denied' });
        expect(existsSync(targets.repo)).toBe(false);
        expect(existsSync(targets.outside)).toBe(false);
      } else {
        expect(outcome).toMatchObject({ repo: 'ok', outside: 'ok' });
      }
    });

    it('gives a private /tmp when it claims filesystem isolation', async () => {
      const hostFile = join(tmpdir(), `crucible-host-tmp-${process.pid}`);
      await writeFile(hostFile, 'host tmp');
      try {
        const result = await sh(`cat '${hostFile}'`);
        if (executor.capabilities.filesystem) expect(result.exitCode).not.toBe(0);
        else expect(result.stdout).toBe('host tmp');
      } finally {
        await rm(hostFile, { force: true });
      }
    });

    it('shows hidden paths as empty, and readOnly paths inside them as readable but not writable', async () => {
      const script = [
        `echo "listing=$(ls -A '${dirs.taskSet}' | tr '\\n' ' ')"`,
        `echo "secret=$(cat '${dirs.secretFile}')"`,
        `echo "baseline=$(cat '${join(dirs.baseline, 'objects')}')"`,
        `if echo x > '${join(dirs.baseline, 'objects')}' 2>/dev/null; then echo baselineWrite=ok; else echo baselineWrite=denied; fi`,
        `if echo x > '${join(dirs.taskSet, 'planted')}' 2>/dev/null; then echo hiddenWrite=ok; else echo hiddenWrite=denied; fi`,
      ].join('\n');
      const outcome = parseLines((await sh(script)).stdout);
      if (executor.capabilities.hiding) {
        expect(outcome).toEqual({
          listing: 'baseline',
          secret: '',
          baseline: 'baseline objects',
          baselineWrite: 'denied',
          hiddenWrite: 'denied',
        });
      } else {
        expect(outcome.secret).toBe('API_KEY=hunter2');
        expect(outcome.listing).toContain('oracle.patch');
      }
    });
  });
}

interface NetworkProbe {
  host: string;
  gateway?: string;
  gatewaySocket?: string;
  interfaces: string[];
}

/** A node script that prints what it could reach, as JSON. */
function probeNetwork(hostPort: number, gatewayPort?: number, gatewaySocket?: string): string {
  return `
    const get = (url) => fetch(url).then((r) => r.text(), (e) => 'error ' + (e.cause?.code ?? e.message));
    const viaSocket = (socketPath) => new Promise((resolve) => {
      require('http').get({ socketPath, path: '/direct' }, (r) => {
        let body = '';
        r.on('data', (d) => (body += d)).on('end', () => resolve(body));
      }).on('error', (e) => resolve('error ' + e.code));
    });
    (async () => {
      const result = { host: await get('http://127.0.0.1:${hostPort}/') };
      ${gatewayPort === undefined ? '' : `result.gateway = await get('http://127.0.0.1:${gatewayPort}/v1/models');`}
      ${gatewaySocket === undefined ? '' : `result.gatewaySocket = await viaSocket(${JSON.stringify(gatewaySocket)});`}
      result.interfaces = Object.keys(require('os').networkInterfaces());
      process.stdout.write(JSON.stringify(result));
    })();
  `;
}

/**
 * A command whose descendants resist a polite end: everything ignores SIGTERM, and one grandchild
 * leaves the process group with setsid. Each runs `sleep <unique number>` to be found by.
 */
function stubbornTree(): { script: string; args: string[] } {
  const args = [uniqueSleepArg(), uniqueSleepArg(), uniqueSleepArg(), uniqueSleepArg()];
  const script = [
    "trap '' TERM",
    `sleep ${args[0]} &`,
    `sh -c 'sleep ${args[1]}' &`,
    `setsid sh -c 'sleep ${args[2]}' >/dev/null 2>&1 &`,
    `setsid sh -c 'sleep ${args[3]}' &`,
    'echo started',
    'wait',
  ].join('\n');
  return { script, args };
}

/** Host pids of the tree's sleeps, once all run (or the exec ends first). */
async function watchTree(args: string[], running: Promise<unknown>): Promise<Map<string, number>> {
  const pids = new Map<string, number>();
  await waitFor(() => {
    for (const arg of args) {
      const [pid] = processesWithArg(arg);
      if (pid !== undefined) pids.set(arg, pid);
    }
    return pids.size === args.length;
  }, running);
  return pids;
}

function parseLines(text: string): Record<string, string> {
  const entries = text
    .split('\n')
    .filter((line) => line.includes('='))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1).trim()]);
  return Object.fromEntries(entries) as Record<string, string>;
}

function listen(server: Server, where: { port: number; host: string } | { path: string }): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(where, () => resolve(server));
  });
}
