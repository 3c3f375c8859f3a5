import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveMounts } from '../../src/sandbox/bwrap-mounts.js';
import type { SandboxLayout } from '../../src/sandbox/executor.js';

describe('resolveMounts', () => {
  let root: string;
  let layout: SandboxLayout;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'crucible-mounts-'));
    for (const dir of ['ws', 'home', 'hidden-dir/objects']) await mkdir(join(root, dir), { recursive: true });
    await writeFile(join(root, 'secret'), 's');
    await writeFile(join(root, 'gw.sock'), '');
    await symlink(join(root, 'ws'), join(root, 'ws-link'));
    layout = {
      writable: [join(root, 'ws-link')],
      hidden: [join(root, 'hidden-dir'), join(root, 'secret'), join(root, 'never-created')],
      readOnly: [join(root, 'hidden-dir/objects')],
      home: join(root, 'home'),
      tmp: join(root, 'tmp-unused'),
      gateway: { socketPath: join(root, 'gw.sock'), port: 1 },
    };
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('classifies hidden paths, skips missing ones, resolves symlinks, and makes HOME writable', async () => {
    expect(await resolveMounts(layout, 'none')).toEqual([
      { kind: 'hide-dir', path: '/run' },
      { kind: 'hide-dir', path: join(root, 'hidden-dir') },
      { kind: 'hide-file', path: join(root, 'secret') },
      { kind: 'read-only', path: join(root, 'hidden-dir/objects') },
      { kind: 'writable', path: join(root, 'ws') },
      { kind: 'writable', path: join(root, 'home') },
      { kind: 'hide-file', path: join(root, 'gw.sock') },
    ]);
  });

  it("keeps /run on the host network, and binds the gateway socket for network 'gateway'", async () => {
    expect(await resolveMounts(layout, 'host')).not.toContainEqual({ kind: 'hide-dir', path: '/run' });
    expect(await resolveMounts(layout, 'gateway')).toContainEqual({ kind: 'read-only', path: join(root, 'gw.sock') });
  });

  it('hides the gateway socket in the other network modes', async () => {
    expect(await resolveMounts(layout, 'none')).toContainEqual({ kind: 'hide-file', path: join(root, 'gw.sock') });
    expect(await resolveMounts(layout, 'host')).toContainEqual({ kind: 'hide-file', path: join(root, 'gw.sock') });
  });
});
