import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostView } from '../../src/infra/sandbox/bwrap-allowlist.js';
import type { MountOp } from '../../src/infra/sandbox/bwrap-args.js';
import { resolveMounts } from '../../src/infra/sandbox/bwrap-mounts.js';
import type { SandboxLayout } from '../../src/infra/sandbox/executor.js';

describe('resolveMounts', () => {
  let root: string;
  let layout: SandboxLayout;
  let view: HostView;
  const ours = (mounts: MountOp[]) => mounts.filter((op) => op.path.startsWith(`${root}/`));

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'crucible-mounts-'));
    for (const dir of ['ws/hidden-dir/objects', 'home', 'elsewhere']) await mkdir(join(root, dir), { recursive: true });
    await writeFile(join(root, 'ws/secret'), 's');
    await writeFile(join(root, 'secret'), 's');
    await writeFile(join(root, 'ws/gw.sock'), '');
    await symlink(join(root, 'ws'), join(root, 'ws-link'));
    layout = {
      writable: [join(root, 'ws-link')],
      hidden: [join(root, 'ws/hidden-dir'), join(root, 'ws/secret'), join(root, 'secret'), join(root, 'never-created')],
      readOnly: [join(root, 'ws/hidden-dir/objects')],
      home: join(root, 'home'),
      tmp: join(root, 'tmp-unused'),
      gateway: { socketPath: join(root, 'ws/gw.sock'), port: 1 },
    };
    view = { path: '/usr/bin:/bin', execPath: process.execPath, userHome: join(root, 'user-home'), sandboxHome: layout.home };
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('resolves symlinks, makes HOME writable, and hides only what something visible contains', async () => {
    expect(ours(await resolveMounts(layout, 'none', view))).toEqual([
      { kind: 'hide-dir', path: join(root, 'ws/hidden-dir') },
      { kind: 'hide-file', path: join(root, 'ws/secret') },
      { kind: 'hide-file', path: join(root, 'ws/gw.sock') },
      { kind: 'read-only', path: join(root, 'ws/hidden-dir/objects') },
      { kind: 'writable', path: join(root, 'ws') },
      { kind: 'writable', path: join(root, 'home') },
    ]);
  });

  it('binds the gateway socket for network gateway, and leaves an invisible one alone otherwise', async () => {
    expect(await resolveMounts(layout, 'gateway', view)).toContainEqual({ kind: 'read-only', path: join(root, 'ws/gw.sock') });
    const elsewhere = { ...layout, gateway: { socketPath: join(root, 'elsewhere'), port: 1 } };
    expect(ours(await resolveMounts(elsewhere, 'none', view)).map((op) => op.path)).not.toContain(join(root, 'elsewhere'));
  });

  it('hides paths inside the allowlist too, and the allowlisted path itself', async () => {
    const nodeDir = dirname(process.execPath);
    const mounts = await resolveMounts({ ...layout, hidden: ['/etc/ld.so.cache', nodeDir] }, 'none', view);
    expect(mounts).toContainEqual({ kind: 'hide-file', path: '/etc/ld.so.cache' });
    expect(mounts).not.toContainEqual({ kind: 'read-only', path: '/etc/ld.so.cache' });
    expect(mounts).toContainEqual({ kind: 'hide-dir', path: nodeDir });
  });

  it('refuses a layout whose paths are relative or missing', async () => {
    await expect(resolveMounts({ ...layout, readOnly: [join(root, 'missing')] }, 'none', view)).rejects.toThrow(/readOnly path does not exist/);
    await expect(resolveMounts({ ...layout, hidden: ['relative'] }, 'none', view)).rejects.toThrow(/must be absolute/);
  });
});
