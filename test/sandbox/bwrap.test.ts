import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutor, SandboxSetupError } from '../../src/sandbox/index.js';
import type { SandboxLayout } from '../../src/sandbox/index.js';
import { parseInitReport } from '../../src/sandbox/bwrap.js';
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

  const exec = (argv: string[], over: Partial<SandboxLayout> = {}) =>
    createExecutor('bwrap', { ...layout, ...over }).exec({ argv, cwd: dirs.workspace, timeoutMs: 30_000, network: 'none' });

  it('hands the command only stdio: no descriptor of the harness or of the control channel', async () => {
    const result = await exec(['sh', '-c', 'ls /proc/self/fd']);
    // 3 is the directory ls is reading.
    expect(result.stdout.split('\n').filter(Boolean).sort()).toEqual(['0', '1', '2', '3']);
  });

  it('runs without capabilities, so the sandbox cannot unmount what hides the host', async () => {
    const result = await exec(['sh', '-c', 'grep CapEff /proc/self/status']);
    expect(result.stdout.trim()).toBe('CapEff:\t0000000000000000');
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
    await expect(executor.exec({ argv: ['true'], cwd: dirs.workspace, timeoutMs: 30_000, network: 'gateway' })).rejects.toThrow(
      /needs layout.gateway/,
    );
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
  it('reads readiness and the first exit status, skipping lines that are not reports', () => {
    const text = ['{"event":"ready"}', 'garbage', '{"event":"exit","exitCode":null,"signal":"SIGKILL"}', '{"event":"exit","exitCode":0,"signal":null}', ''].join('\n');
    expect(parseInitReport(text)).toEqual({ ready: true, exit: { exitCode: null, signal: 'SIGKILL' } });
  });

  it('reports nothing for a sandbox that never started', () => {
    expect(parseInitReport('')).toEqual({ ready: false });
  });
});
