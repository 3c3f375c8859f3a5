import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { CONTAINER_OWNER_LABEL, HOST_IMAGE, ownerLabelValue, sweepOrphans } from '../../src/infra/docker/index.js';
import { createExecutor } from '../../src/infra/sandbox/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { CLI } from '../helpers/cli.js';
import { describeConformance } from './helpers/conformance-suite.js';
import { makeSandboxDirs } from './helpers.js';
import { boundHostPaths, recordEngine } from './helpers/engine-recorder.js';
import { buildToolchainImage, copyImage, startSecondEngine, type SecondEngine } from './helpers/second-engine.js';

/**
 * `--sandbox docker` on an engine that shares no path with this machine: a second engine the test
 * starts, reached over TCP as DOCKER_HOST. The workspace goes in and the change comes out by
 * archives (src/infra/sandbox/docker-workspace.ts); nothing of the host is bound in. The image is
 * carried over from the main engine (docker save | docker load) with a toolchain copied into it.
 * Through it: the executor conformance suite, the workspace seam, the bundled examples run by the
 * CLI (every container create request checked for host binds), and the sweep after a kill.
 */
const BASE_IMAGE = 'crucible-test/busybox:1';
const IMAGE_PATH = '/usr/local/bin:/usr/bin:/bin';
// Made before DOCKER_HOST points at the second engine: the main one, where the base image is.
const main = new Docker();
let engine: SecondEngine;

beforeAll(async () => {
  engine = await startSecondEngine();
  await copyImage(main, engine.client, BASE_IMAGE);
  await buildToolchainImage(engine.client, BASE_IMAGE, HOST_IMAGE);
  vi.stubEnv('DOCKER_HOST', engine.host);
}, attemptBudget(4));

afterAll(async () => {
  vi.unstubAllEnvs();
  await engine?.stop();
}, attemptBudget(1));

describeConformance('docker executor on an engine reached over TCP', 'docker', (layout) => createExecutor('docker', layout, { killGraceMs: 300 }), {
  path: IMAGE_PATH,
  hostToolchain: false,
  hostPaths: false,
  networkModes: ['none', 'host'],
});

describe('the workspace seam of an engine on another machine', () => {
  it(
    'binds no host path: the container holds volumes only, and the change comes back to the host, deletions included',
    async () => {
      const dirs = await makeSandboxDirs();
      const executor = createExecutor('docker', { writable: [dirs.workspace], hidden: [dirs.taskSet], readOnly: [dirs.repo], home: dirs.home, tmp: dirs.tmp });
      try {
        await writeFile(join(dirs.workspace, 'kept'), 'kept\n');
        await writeFile(join(dirs.workspace, 'doomed'), 'doomed\n');
        const running = executor.exec({
          argv: ['sh', '-c', 'read -r _; echo new > made; rm doomed; ln -s /etc/passwd link; mkdir -p sub && echo deep > sub/file'],
          cwd: dirs.workspace,
          timeoutMs: 60_000,
          network: 'none',
          stdin: 'go\n',
        });
        const result = await running;
        expect(result).toMatchObject({ exitCode: 0 });
        const containers = await engine.client.listContainers({ all: true, filters: { label: [CONTAINER_OWNER_LABEL] } });
        expect(containers.length).toBeGreaterThan(0);
        for (const info of containers) expect(boundHostPaths((await engine.client.getContainer(info.Id).inspect()).HostConfig)).toEqual([]);
        expect(await readFile(join(dirs.workspace, 'made'), 'utf8')).toBe('new\n');
        expect(await readFile(join(dirs.workspace, 'sub', 'file'), 'utf8')).toBe('deep\n');
        expect(await readFile(join(dirs.workspace, 'kept'), 'utf8')).toBe('kept\n');
        expect(existsSync(join(dirs.workspace, 'doomed'))).toBe(false);
        // A link the command made is a link on the host, never followed on the way out.
        const { readlink } = await import('node:fs/promises');
        expect(await readlink(join(dirs.workspace, 'link'))).toBe('/etc/passwd');
        // What the host changes between commands goes in before the next one, deletions included.
        await rm(join(dirs.workspace, 'made'));
        await mkdir(join(dirs.workspace, 'from-host'));
        await writeFile(join(dirs.workspace, 'from-host', 'f'), 'host\n');
        const seen = await executor.exec({ argv: ['sh', '-c', 'ls; cat from-host/f'], cwd: dirs.workspace, timeoutMs: 60_000, network: 'none' });
        expect(seen.stdout.split('\n')).not.toContain('made');
        expect(seen.stdout).toContain('from-host\n');
        expect(seen.stdout).toContain('host\n');
      } finally {
        await executor.close();
        await rm(dirs.root, { recursive: true, force: true });
      }
      // Closing removes the containers and their volumes from the engine; the helpers' volume stays, like an image.
      expect(await engine.client.listContainers({ all: true, filters: { label: [CONTAINER_OWNER_LABEL] } })).toEqual([]);
      const volumes = ((await engine.client.listVolumes()).Volumes ?? []).map((v) => v.Name);
      expect(volumes.filter((name) => !name.startsWith('crucible-helpers-'))).toEqual([]);
    },
    attemptBudget(2),
  );
});

describe('the bundled examples on an engine reached over TCP', () => {
  const tasks = loadTaskSet('examples/tasks.yaml').tasks;
  const attempts = tasks.length * 2;

  it(
    'oracle passes every task and nop none, and no container the run asked for binds a host path',
    async () => {
      // The CLI talks to the engine through the recorder, which keeps every create request it forwards.
      const recorder = await recordEngine(engine.port);
      const out = await mkdtemp(join(tmpdir(), 'crucible-remote-examples-'));
      try {
        const args = ['run', 'examples/tasks.yaml', '--agent', 'oracle', '--agent', 'nop', '--sandbox', 'docker', '--out', out, '--json'];
        const run = await runCrucible(args, { DOCKER_HOST: recorder.host }, attemptBudget(attempts));
        const summary = JSON.parse(run.stdout || '{}') as { attempts?: Array<{ taskId: string; agent: string; verdict: string; message: string }> };
        const of = (agent: string) => (summary.attempts ?? []).filter((a) => a.agent === agent);
        expect(
          of('oracle').map((a) => [a.taskId, a.verdict]),
          run.stderr,
        ).toEqual(expect.arrayContaining(tasks.map((t) => [t.id, 'PASS'])));
        expect(of('oracle')).toHaveLength(tasks.length);
        // FAIL, never ERROR: each nop attempt ran and its fail-to-pass tests failed.
        expect(of('nop').map((a) => [a.taskId, a.verdict])).toEqual(expect.arrayContaining(tasks.map((t) => [t.id, 'FAIL'])));
        expect(of('nop')).toHaveLength(tasks.length);
        for (const a of of('nop')) for (const id of tasks.find((t) => t.id === a.taskId)?.tests.failToPass ?? []) expect(a.message).toContain(id);
        expect(run.status).toBe(1);
      } finally {
        await recorder.close();
        await rm(out, { recursive: true, force: true });
      }
      expect(recorder.creates.length).toBeGreaterThanOrEqual(attempts);
      expect(recorder.creates.flatMap((create) => boundHostPaths(create.HostConfig))).toEqual([]);
    },
    attemptBudget(attempts + 1),
  );
});

describe('the sweep of what a killed Crucible left on the engine', () => {
  it(
    "removes the stager and the volumes of a Crucible killed mid-command, and keeps a live one's",
    async () => {
      const dirs = await makeSandboxDirs();
      // This process's executor, with its phase container, stager and volumes in use.
      const live = createExecutor('docker', { writable: [dirs.workspace], hidden: [], readOnly: [], home: dirs.home, tmp: dirs.tmp });
      const execs = await execStarts();
      const driver = resolve('test/sandbox/helpers/docker-crash-driver.mjs');
      const child = spawn(process.execPath, [driver, resolve('dist/infra/sandbox/index.js'), await mkdtemp(join(dirs.root, 'crash-'))], {
        env: { ...process.env, DOCKER_HOST: engine.host },
        stdio: 'ignore',
      });
      const pid = child.pid ?? -1;
      try {
        expect(await live.exec({ argv: ['true'], cwd: dirs.workspace, timeoutMs: 60_000, network: 'none' })).toMatchObject({ exitCode: 0 });
        // The driver's command runs (its change comes back only when it ends, which it never does).
        const running = await Promise.race([
          execs.by(ownerLabelValue(pid)).then(() => true),
          new Promise<boolean>((done) => child.once('exit', () => done(false))),
        ]);
        execs.stop();
        expect(running).toBe(true);
        const phase = await owned(pid, { status: ['running'] });
        expect(phase).toHaveLength(1);
        expect((await ownedVolumes(pid)).length).toBeGreaterThan(0);
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGKILL');
        await exited;
        // The killed process's phase container removes itself (its keep-alive sees the attach close)...
        await engine.client
          .getContainer(phase[0] ?? '')
          .wait({ condition: 'removed' })
          .catch(() => undefined);
        // ...its stager, never started, and the volumes it holds are left for the sweep.
        expect(await owned(pid)).toHaveLength(1);
        const mine = { containers: await owned(process.pid), volumes: await ownedVolumes(process.pid) };
        expect(mine.volumes.length).toBeGreaterThan(0);
        const swept = await sweepOrphans(engine.client);
        expect(swept.containers).toBe(1);
        expect(swept.volumes).toBeGreaterThan(0);
        expect({ containers: await owned(pid), volumes: await ownedVolumes(pid) }).toEqual({ containers: [], volumes: [] });
        expect({ containers: await owned(process.pid), volumes: await ownedVolumes(process.pid) }).toEqual(mine);
      } finally {
        execs.stop();
        child.kill('SIGKILL');
        await live.close();
        await rm(dirs.root, { recursive: true, force: true });
        for (const name of await readdir(tmpdir()))
          if (name.startsWith(`crucible-docker-${pid}-`)) await rm(join(tmpdir(), name), { recursive: true, force: true });
      }
    },
    attemptBudget(2),
  );
});

/** The second engine's exec starts from now on: `by(owner)` settles at the first in a container of that owner. */
async function execStarts(): Promise<{ by(owner: string): Promise<void>; stop(): void }> {
  const stream = (await engine.client.getEvents({ filters: { type: ['container'], event: ['exec_start'] } })) as Readable;
  const seen = new Set<string>();
  const waiting = new Map<string, () => void>();
  let pending = '';
  stream.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines.filter((l) => l.trim() !== '')) {
      const owner = (JSON.parse(line) as { Actor?: { Attributes?: Record<string, string> } }).Actor?.Attributes?.[CONTAINER_OWNER_LABEL] ?? '';
      seen.add(owner);
      waiting.get(owner)?.();
    }
  });
  return {
    by: (owner) => (seen.has(owner) ? Promise.resolve() : new Promise<void>((done) => waiting.set(owner, done))),
    stop: () => stream.destroy(),
  };
}

/** The ids of the containers on the second engine that process `pid` owns. */
async function owned(pid: number, filters: Record<string, string[]> = {}): Promise<string[]> {
  const listed = await engine.client.listContainers({ all: true, filters: { label: [`${CONTAINER_OWNER_LABEL}=${ownerLabelValue(pid)}`], ...filters } });
  return listed.map((info) => info.Id).sort();
}

/** The names of the volumes on the second engine that process `pid` owns. */
async function ownedVolumes(pid: number): Promise<string[]> {
  const listed = (await engine.client.listVolumes({ filters: { label: [`${CONTAINER_OWNER_LABEL}=${ownerLabelValue(pid)}`] } })).Volumes ?? [];
  return listed.map((volume) => volume.Name).sort();
}

/**
 * The built CLI in a process of its own, waited for without blocking this one (the recorder it
 * talks to runs here); killed at `timeoutMs`.
 */
function runCrucible(args: string[], env: Record<string, string>, timeoutMs: number): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, NO_COLOR: '1', CI: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: timeoutMs,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}
