import { realpath, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { MountOp } from './bwrap-args.js';
import type { NetworkMode, SandboxLayout } from './executor.js';

/**
 * Turns a layout into mounts as they exist on disk now: paths resolved through symlinks (bwrap
 * mounts real paths), hidden paths classified as directory or file, and missing hidden paths
 * skipped (there is nothing to hide). A missing readOnly, writable or home path is the caller's
 * mistake and throws.
 */
export async function resolveMounts(layout: SandboxLayout, network: NetworkMode): Promise<MountOp[]> {
  const mounts: MountOp[] = [];
  // Host services listen on Unix sockets under /run (docker, dbus), which an unshared network
  // does not cut. The host network mode keeps it: resolv.conf often points into /run.
  if (network !== 'host' && (await isDirectory('/run'))) mounts.push({ kind: 'hide-dir', path: '/run' });
  for (const path of layout.hidden) {
    const real = await realpath(absolute(path, 'hidden')).catch(() => undefined);
    if (real === undefined) continue;
    const info = await stat(real);
    mounts.push({ kind: info.isDirectory() ? 'hide-dir' : 'hide-file', path: real });
  }
  for (const path of layout.readOnly) mounts.push({ kind: 'read-only', path: await existing(path, 'readOnly') });
  // HOME is private to the attempt and tools expect to write caches there.
  for (const path of [...layout.writable, layout.home]) {
    mounts.push({ kind: 'writable', path: await existing(path, 'writable') });
  }
  if (network === 'gateway') {
    if (!layout.gateway) throw new Error("exec: network 'gateway' needs layout.gateway");
    // connect() works through a read-only bind: only the socket inode's permissions are checked.
    mounts.push({ kind: 'read-only', path: await existing(layout.gateway.socketPath, 'gateway.socketPath') });
  } else if (layout.gateway) {
    // A Unix socket is reachable through the filesystem whatever the network namespace says.
    const socket = await realpath(absolute(layout.gateway.socketPath, 'gateway.socketPath')).catch(() => undefined);
    if (socket !== undefined) mounts.push({ kind: 'hide-file', path: socket });
  }
  return dedupe(mounts);
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
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
