import { realpath, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { allowlistMounts, isWithin } from './bwrap-allowlist.js';
import type { HostView } from './bwrap-allowlist.js';
import type { MountOp } from './bwrap-args.js';
import type { NetworkMode, SandboxLayout } from './executor.js';

/**
 * Turns the allowlist and a layout into mounts as they exist on disk now: paths resolved through
 * symlinks (bwrap mounts real paths), hidden paths classified as directory or file. A hidden path
 * is mounted only where something visible contains it: elsewhere it is absent already, and hiding
 * it would only make an empty directory appear. A missing readOnly, writable or home path is the
 * caller's mistake and throws.
 */
export async function resolveMounts(layout: SandboxLayout, network: NetworkMode, view: HostView): Promise<MountOp[]> {
  const allowlisted = allowlistMounts(network, view);
  const mounts: MountOp[] = [];
  for (const path of layout.readOnly) mounts.push({ kind: 'read-only', path: await existing(path, 'readOnly') });
  // HOME is private to the attempt and tools expect to write caches there.
  for (const path of [...layout.writable, layout.home]) {
    mounts.push({ kind: 'writable', path: await existing(path, 'writable') });
  }
  if (network === 'gateway') {
    if (!layout.gateway) throw new Error("exec: network 'gateway' needs layout.gateway");
    // connect() works through a read-only bind: only the socket inode's permissions are checked.
    mounts.push({ kind: 'read-only', path: await existing(layout.gateway.socketPath, 'gateway.socketPath') });
  }

  const visible = [...allowlisted, ...mounts].filter((op) => op.kind === 'read-only' || op.kind === 'writable').map((op) => op.path);
  const hidden: MountOp[] = [];
  // A Unix socket is reachable through the filesystem whatever the network namespace says.
  const hiddenPaths = [...layout.hidden, ...(network !== 'gateway' && layout.gateway ? [layout.gateway.socketPath] : [])];
  for (const path of hiddenPaths) {
    const real = await realpath(absolute(path, 'hidden')).catch(() => undefined);
    if (real === undefined || !visible.some((root) => isWithin(real, root))) continue;
    const info = await stat(real);
    hidden.push({ kind: info.isDirectory() ? 'hide-dir' : 'hide-file', path: real });
  }
  // Hidden goes between the allowlist and the layout's own mounts, so that for the same path
  // hidden beats the allowlist, and readOnly and writable beat hidden.
  return dedupe([...allowlisted, ...hidden, ...mounts]);
}

function absolute(path: string, field: string): string {
  if (!isAbsolute(path)) throw new Error(`sandbox layout: ${field} path must be absolute: ${path}`);
  return path;
}

async function existing(path: string, field: string): Promise<string> {
  try {
    return await realpath(absolute(path, field));
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('sandbox layout:')) throw error;
    throw new Error(`sandbox layout: ${field} path does not exist: ${path}`);
  }
}

/** The same path listed twice keeps its last role, as a later mount would cover an earlier one. */
function dedupe(mounts: MountOp[]): MountOp[] {
  const byPath = new Map<string, MountOp>();
  for (const mount of mounts) {
    byPath.delete(mount.path);
    byPath.set(mount.path, mount);
  }
  return [...byPath.values()];
}
