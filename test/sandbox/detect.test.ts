import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { namespaceFix } from '../../src/infra/sandbox/detect.js';
import { detectBwrap, resolveSafestSandbox, resolveSandbox, SandboxUnavailableError } from '../../src/infra/sandbox/index.js';

describe('detectBwrap and resolveSandbox', () => {
  let emptyDir: string;
  let brokenDir: string;

  beforeAll(async () => {
    emptyDir = await mkdtemp(join(tmpdir(), 'crucible-nobwrap-'));
    // Stands in for a bwrap on a kernel without unprivileged user namespaces, which this machine is not.
    brokenDir = await mkdtemp(join(tmpdir(), 'crucible-brokenbwrap-'));
    const stub = join(brokenDir, 'bwrap');
    await writeFile(
      stub,
      '#!/bin/sh\nif [ "$1" = --version ]; then echo "bubblewrap 0.8.0"; exit 0; fi\n' +
        'echo "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
    );
    await chmod(stub, 0o755);
  });

  afterAll(async () => {
    await rm(emptyDir, { recursive: true, force: true });
    await rm(brokenDir, { recursive: true, force: true });
  });

  it('finds the real bwrap on this machine and proves it can sandbox', async () => {
    const detection = await detectBwrap();
    expect(detection).toMatchObject({ ok: true, version: expect.stringMatching(/^\d+\.\d+/) });
  });

  it('reports a missing bwrap with the install command', async () => {
    const detection = await detectBwrap({ searchPath: emptyDir });
    expect(detection).toMatchObject({ ok: false, reason: expect.stringContaining('not found') });
    expect(detection.ok === false && detection.fix).toContain('sudo apt-get install -y bubblewrap');
  });

  it('reports a bwrap that cannot create namespaces with what bwrap said', async () => {
    const detection = await detectBwrap({ searchPath: brokenDir });
    expect(detection).toMatchObject({ ok: false, reason: expect.stringContaining('No permissions to creating new namespace') });
    expect(detection.ok === false && detection.fix).toMatch(/user namespaces/);
  });

  it('defaults to bwrap when it works', async () => {
    expect(await resolveSandbox(undefined, { allowFallback: false })).toEqual({ kind: 'bwrap' });
  });

  it('runs local without a warning when local is what the user asked for', async () => {
    expect(await resolveSandbox('local', { allowFallback: false, searchPath: emptyDir })).toEqual({ kind: 'local' });
  });

  it('falls back to local with a visible warning only when allowed', async () => {
    const resolved = await resolveSandbox(undefined, { allowFallback: true, searchPath: emptyDir });
    expect(resolved.kind).toBe('local');
    expect(resolved.warning).toContain('UNSANDBOXED');
    expect(resolved.warning).toContain('sudo apt-get install -y bubblewrap');
  });

  it('names who runs unsandboxed in the warning', async () => {
    const resolved = await resolveSandbox(undefined, { allowFallback: true, searchPath: emptyDir, unsandboxed: 'the tests run' });
    expect(resolved.warning).toContain('so the tests run UNSANDBOXED');
  });

  it('never swaps a sandbox named by --sandbox for another, even for commands that may fall back', async () => {
    const failure = resolveSandbox('bwrap', { allowFallback: true, searchPath: emptyDir });
    await expect(failure).rejects.toBeInstanceOf(SandboxUnavailableError);
  });

  it('refuses with a one-line error naming the fix and --sandbox local when fallback is not allowed', async () => {
    for (const requested of [undefined, 'bwrap'] as const) {
      const failure = resolveSandbox(requested, { allowFallback: false, searchPath: emptyDir });
      await expect(failure).rejects.toBeInstanceOf(SandboxUnavailableError);
      const message = await failure.catch((error: Error) => error.message);
      expect(message).not.toContain('\n');
      expect(message).toContain('sudo apt-get install -y bubblewrap');
      expect(message).toContain('--sandbox local');
    }
  });
});

describe('resolveSandbox for docker', () => {
  it('resolves docker when the engine answers (this machine and CI run one)', async () => {
    expect(await resolveSandbox('docker', { allowFallback: true })).toEqual({ kind: 'docker' });
  });

  it('names docker, the engine it tried and the fix when none answers, and never falls back', async () => {
    vi.stubEnv('DOCKER_HOST', 'unix:///nonexistent/docker.sock');
    // A fresh module graph: the engine client is made once per process, from DOCKER_HOST.
    vi.resetModules();
    try {
      const fresh = await import('../../src/infra/sandbox/index.js');
      const failure = fresh.resolveSandbox('docker', { allowFallback: true });
      await expect(failure).rejects.toBeInstanceOf(fresh.SandboxUnavailableError);
      const message = await failure.catch((error: Error) => error.message);
      expect(message).toMatch(
        /^--sandbox docker needs a Docker engine: no Docker engine answers at unix:\/\/\/nonexistent\/docker\.sock \(fix: install Docker/,
      );
      expect(message).not.toContain('bubblewrap');
      expect(message).not.toContain('\n');
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });
});

// The quick start's rule (fixed content only): the most confining sandbox this machine has.
describe('resolveSafestSandbox', () => {
  let emptyDir: string;
  beforeAll(async () => {
    emptyDir = await mkdtemp(join(tmpdir(), 'crucible-nobwrap-'));
  });
  afterAll(async () => rm(emptyDir, { recursive: true, force: true }));

  it('is bwrap when bwrap works, with nothing passed over', async () => {
    expect(await resolveSafestSandbox()).toEqual({ kind: 'bwrap' });
  });

  it('is docker when bwrap is missing and an engine answers (this machine runs one), saying why bwrap was passed over', async () => {
    expect(await resolveSafestSandbox({ searchPath: emptyDir })).toEqual({
      kind: 'docker',
      unavailable: { reasons: [expect.stringContaining('bwrap is not installed')], fix: expect.stringContaining('sudo apt-get install -y bubblewrap') },
    });
  });

  it('is local only when neither bwrap nor an engine is there, with both reasons', async () => {
    vi.stubEnv('DOCKER_HOST', 'unix:///nonexistent/docker.sock');
    vi.resetModules();
    try {
      const fresh = await import('../../src/infra/sandbox/index.js');
      expect(await fresh.resolveSafestSandbox({ searchPath: emptyDir })).toEqual({
        kind: 'local',
        unavailable: {
          reasons: [expect.stringContaining('bwrap is not installed'), expect.stringContaining('no Docker engine answers at unix:///nonexistent/docker.sock')],
          fix: expect.stringContaining('sudo apt-get install -y bubblewrap'),
        },
      });
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });
});

describe('namespaceFix', () => {
  it.each([
    [{ apparmorRestrict: '1', maxUserNamespaces: '1000' }, 'kernel.apparmor_restrict_unprivileged_userns=0'],
    [{ unprivilegedClone: '0' }, 'kernel.unprivileged_userns_clone=1'],
    [{ maxUserNamespaces: '0' }, 'user.max_user_namespaces='],
    [{}, 'unprivileged user namespaces'],
  ])('%o → %s', (settings, expected) => {
    expect(namespaceFix(settings)).toContain(expected);
  });
});
