import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerClient, detectDocker, HOST_IMAGE } from '../../src/infra/docker/index.js';
import { finalBase, hashContext, HOST_VIEW_LABEL, resolveEnvironments, type EnvironmentResolution } from '../../src/domain/environment/index.js';
import type { Task } from '../../src/core/types/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const client = dockerClient();
/** Images this file made, removed at the end so a rerun starts from nothing. */
const made = new Set<string>();

beforeAll(async () => {
  const docker = await detectDocker(client);
  // CI has an engine: a missing one is a broken machine, said loudly, never a silent skip.
  if (!docker.ok) throw new Error(`these tests need a Docker engine: ${docker.reason} (fix: ${docker.fix})`);
});

afterAll(async () => {
  for (const ref of made)
    await client
      .getImage(ref)
      .remove({ force: true })
      .catch(() => undefined);
});

function task(id: string, dir: string, environment: Task['environment']): Task {
  return {
    id,
    version: '1',
    sourceFile: join(dir, 'tasks.yaml'),
    repo: { kind: 'local', path: dir },
    instruction: 'x',
    setup: [],
    tests: { command: 'true', failToPass: ['a'], passToPass: 'all_others', testPaths: [] },
    policy: {
      preset: 'default',
      forbiddenPaths: [],
      allowedPaths: [],
      unsafeCommands: [],
      secrets: { paths: [], literals: [], presets: [] },
      severities: {},
    },
    limits: {
      agentTimeoutMs: 1000,
      testTimeoutMs: 1000,
      setupTimeoutMs: 1000,
      resources: { pids: 64, memoryBytes: 1 << 28, fileSizeBytes: 1 << 20, workspaceBytes: 1 << 20, workspaceFiles: 10, changeFiles: 10, changeBytes: 1 << 20 },
    },
    ...(environment ? { environment } : {}),
    metadata: { tags: [] },
  };
}

/** A context whose Dockerfile copies a file with a per-test marker, so each test builds its own image. */
function context(dockerfile: string, files: Record<string, string> = {}): { dir: string; dockerfile: string } {
  const dir = tempDir();
  mkdirSync(join(dir, 'env'));
  writeFileSync(join(dir, 'env', 'Dockerfile'), dockerfile);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'env', name), text);
  return { dir, dockerfile: join(dir, 'env', 'Dockerfile') };
}

function resolved(result: EnvironmentResolution | undefined) {
  if (!result?.ok) throw new Error(`expected a resolved environment, got ${JSON.stringify(result)}`);
  // Only builds are this file's to remove: the host image and tags of it stay.
  if (result.environment.source === 'dockerfile') made.add(result.environment.imageId);
  return result.environment;
}

function failed(result: EnvironmentResolution | undefined) {
  if (result === undefined || result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result.failure;
}

// A build is bounded like an attempt: it starts containers and writes layers on a shared machine.
describe('resolveEnvironments (real Docker engine)', { timeout: attemptBudget(1) }, () => {
  it('builds a Dockerfile FROM the host view once, then reuses it: same image id, same creation time, no build', async () => {
    const marker = `${process.pid}-${Date.now()}`;
    const { dir, dockerfile } = context('FROM crucible/host:1\nCOPY marker.txt /opt/marker.txt\nENV MARKER=1\n', { 'marker.txt': marker });
    const t = task('built', dir, { dockerfile, context: join(dir, 'env'), buildArgs: {}, pull: 'never' });
    const lines: string[] = [];
    const first = resolved((await resolveEnvironments([t], { onProgress: (l) => lines.push(l) })).get('built'));
    expect(first).toMatchObject({ source: 'dockerfile', reference: 'env/Dockerfile', how: 'built', repoDigest: null, immutable: false, hostView: true });
    expect(first.contextHash).toMatch(/^[a-f0-9]{64}$/);
    expect(lines.some((l) => l.includes('building env/Dockerfile'))).toBe(true);
    const inspected = await client.getImage(first.imageId).inspect();
    expect(inspected.Config.Labels?.[HOST_VIEW_LABEL]).toBe('1');

    const again: string[] = [];
    const second = resolved((await resolveEnvironments([t], { onProgress: (l) => again.push(l) })).get('built'));
    expect(second.how).toBe('cached');
    expect(second.imageId).toBe(first.imageId);
    expect(second.created).toBe(first.created);
    expect(again.some((l) => l.startsWith('build '))).toBe(false);

    // One changed file in the context is another image.
    writeFileSync(join(dir, 'env', 'marker.txt'), `${marker}-changed`);
    const third = resolved((await resolveEnvironments([t])).get('built'));
    expect(third.how).toBe('built');
    expect(third.imageId).not.toBe(first.imageId);
  });

  it('resolves an environment shared by several tasks once', async () => {
    const { dir, dockerfile } = context(`FROM crucible/host:1\nLABEL test.marker=${process.pid}-${Date.now()}-shared\n`);
    const env = { dockerfile, context: join(dir, 'env'), buildArgs: {}, pull: 'never' as const };
    const lines: string[] = [];
    const results = await resolveEnvironments([task('a', dir, env), task('b', dir, env)], { onProgress: (l) => lines.push(l) });
    expect(resolved(results.get('a')).imageId).toBe(resolved(results.get('b')).imageId);
    expect(lines.filter((l) => l.includes('environment: building'))).toHaveLength(1);
  });

  it('turns a failing build into a failure with its last lines and the fix', async () => {
    const { dir, dockerfile } = context('FROM crucible/host:1\nCOPY not-there.txt /x\n');
    const failure = failed(
      (await resolveEnvironments([task('broken', dir, { dockerfile, context: join(dir, 'env'), buildArgs: {}, pull: 'never' })])).get('broken'),
    );
    expect(failure.field).toBe('dockerfile');
    expect(failure.problem).toMatch(/building env\/Dockerfile failed: .*not-there\.txt/);
    expect(failure.fix).toMatch(/docker build -f/);
  });

  it('names the image and the fix when an image is missing and pull is never', async () => {
    const dir = tempDir();
    const failure = failed((await resolveEnvironments([task('gone', dir, { image: 'crucible-test/absent:1', buildArgs: {}, pull: 'never' })])).get('gone'));
    expect(failure).toEqual({
      field: 'image',
      problem: 'image crucible-test/absent:1 is not on this machine and pull is never',
      fix: 'docker pull crucible-test/absent:1, or set environment.pull: missing',
    });
  });

  it('records a local tag as mutable with no digest, and a task without an environment as the host view', async () => {
    const dir = tempDir();
    const tag = `crucible-test/local:${process.pid}`;
    const [repo, name] = tag.split(':') as [string, string];
    await client.getImage(HOST_IMAGE).tag({ repo, tag: name });
    made.add(tag);
    const results = await resolveEnvironments([task('tagged', dir, { image: tag, buildArgs: {}, pull: 'never' }), task('plain', dir, undefined)]);
    const tagged = resolved(results.get('tagged'));
    expect(tagged).toMatchObject({ source: 'image', reference: tag, repoDigest: null, immutable: false, how: 'local', hostView: true });
    expect(tagged.platform).toMatch(/^linux\//);
    expect(tagged.engineVersion).toMatch(/^\d+\.\d+/);
    const plain = results.get('plain');
    expect(plain?.ok && plain.environment).toMatchObject({ source: 'host', reference: HOST_IMAGE, imageId: tagged.imageId });
  });

  it('refuses an image of another platform than the task asks for', async () => {
    const dir = tempDir();
    const failure = failed(
      (await resolveEnvironments([task('arch', dir, { image: HOST_IMAGE, platform: 'linux/s390x', buildArgs: {}, pull: 'never' })])).get('arch'),
    );
    expect(failure.field).toBe('platform');
    expect(failure.problem).toMatch(/is linux\/\w+, not linux\/s390x/);
  });
});

describe('hashContext', () => {
  it('changes with a file, an executable bit, a build argument or the platform, and not otherwise', async () => {
    const { dir, dockerfile } = context('FROM crucible/host:1\n', { 'a.sh': 'echo a' });
    const input = { context: join(dir, 'env'), dockerfile, buildArgs: { A: '1' } };
    const base = await hashContext(input);
    expect(base.files).toEqual(['Dockerfile', 'a.sh']);
    expect((await hashContext(input)).hash).toBe(base.hash);
    expect((await hashContext({ ...input, buildArgs: { A: '2' } })).hash).not.toBe(base.hash);
    expect((await hashContext({ ...input, platform: 'linux/arm64' })).hash).not.toBe(base.hash);
    chmodSync(join(dir, 'env', 'a.sh'), 0o755);
    const exec = await hashContext(input);
    expect(exec.hash).not.toBe(base.hash);
    writeFileSync(join(dir, 'env', 'a.sh'), 'echo b');
    expect((await hashContext(input)).hash).not.toBe(exec.hash);
  });
});

describe('finalBase', () => {
  it('follows stage names to the image the final stage starts from', () => {
    expect(finalBase('FROM crucible/host:1\nCOPY . /x\n')).toBe('crucible/host:1');
    expect(finalBase('FROM --platform=linux/amd64 python:3 AS build\nRUN x\nFROM build\n')).toBe('python:3');
    expect(finalBase('FROM a AS one\nFROM b\n')).toBe('b');
    expect(finalBase('ARG BASE\nFROM $BASE\n')).toBeUndefined();
    expect(finalBase('# nothing\n')).toBeUndefined();
  });
});
