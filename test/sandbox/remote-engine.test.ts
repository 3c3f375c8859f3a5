import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CONTAINER_OWNER_LABEL, HOST_IMAGE } from '../../src/infra/docker/index.js';
import { createExecutor } from '../../src/infra/sandbox/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { describeConformance } from './helpers/conformance-suite.js';
import { makeSandboxDirs } from './helpers.js';
import { buildToolchainImage, copyImage, startSecondEngine, type SecondEngine } from './helpers/second-engine.js';

/**
 * `--sandbox docker` on an engine that shares no path with this machine: a second engine the test
 * starts, reached over TCP as DOCKER_HOST. The workspace goes in and the change comes out by
 * archives (src/infra/sandbox/docker-workspace.ts); nothing of the host is bound in. The image is
 * carried over from the main engine (docker save | docker load) with a toolchain copied into it.
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
        for (const info of containers) {
          const mounts = (await engine.client.getContainer(info.Id).inspect()).Mounts;
          expect(mounts.filter((m) => m.Type === 'bind')).toEqual([]);
        }
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
