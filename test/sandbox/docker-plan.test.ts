import { describe, expect, it } from 'vitest';
import { containerResources, MEMORY_ALLOWANCE_BYTES, PIDS_ALLOWANCE, supportsStorageLimit } from '../../src/infra/sandbox/docker-limits.js';
import { parseLdd } from '../../src/infra/sandbox/docker-runtime.js';

/** The pure parts of the docker executor's plan; the executor itself is tested on a real engine (docker.test.ts). */
describe('containerResources', () => {
  it('turns the layout limits into the container resources, with the helpers allowance and no swap', () => {
    const resources = containerResources(
      { pids: 50, memoryBytes: 256 << 20, fileSizeBytes: 1 << 20, cpuSeconds: 10 },
      { imageId: 'sha256:x', cpus: 1.5, storageBytes: 1 << 30 },
      false,
    );
    expect(resources).toEqual({
      PidsLimit: 50 + PIDS_ALLOWANCE,
      Memory: (256 << 20) + MEMORY_ALLOWANCE_BYTES,
      MemorySwap: (256 << 20) + MEMORY_ALLOWANCE_BYTES,
      Ulimits: [{ Name: 'fsize', Soft: 1 << 20, Hard: 1 << 20 }],
      NanoCpus: 1_500_000_000,
    });
    expect(containerResources(undefined, { imageId: 'sha256:x', storageBytes: 1 << 30 }, true)).toEqual({ StorageOpt: { size: String(1 << 30) } });
  });

  it('refuses limits that are not positive whole numbers', () => {
    expect(() => containerResources({ pids: 0 }, undefined, false)).toThrow(/limits\.pids must be a positive whole number/);
    expect(() => containerResources(undefined, { imageId: 'sha256:x', cpus: 0 }, false)).toThrow(/cpus must be positive/);
  });
});

describe('supportsStorageLimit', () => {
  it.each([
    ['overlay2', [['Backing Filesystem', 'extfs']], false],
    ['overlay2', [['Backing Filesystem', 'xfs']], true],
    ['btrfs', [], true],
    ['vfs', [], false],
  ] as const)('%s on %j → %s', (driver, status, expected) => {
    expect(supportsStorageLimit(driver, status)).toBe(expected);
  });
});

describe('parseLdd', () => {
  it("finds node's loader and libraries", () => {
    const text = [
      '\tlinux-vdso.so.1 (0x00007ffd)',
      '\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f4d)',
      '\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f4e)',
      '\t/lib64/ld-linux-x86-64.so.2 (0x00007f4f)',
    ].join('\n');
    expect(parseLdd(text)).toEqual({
      loader: { name: 'ld-linux-x86-64.so.2', path: '/lib64/ld-linux-x86-64.so.2' },
      libraries: [
        { name: 'libstdc++.so.6', path: '/lib/x86_64-linux-gnu/libstdc++.so.6' },
        { name: 'libc.so.6', path: '/lib/x86_64-linux-gnu/libc.so.6' },
      ],
    });
  });

  it('has nothing to bind for a static node', () => {
    expect(parseLdd('\tnot a dynamic executable\n')).toBeUndefined();
  });
});
