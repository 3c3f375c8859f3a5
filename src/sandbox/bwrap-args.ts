import type { NetworkMode } from './executor.js';

/** One mount over the read-only host root. Paths are absolute and already resolved. */
export type MountOp =
  /** An empty read-only directory in place of a host directory. */
  | { kind: 'hide-dir'; path: string }
  /** An empty file (/dev/null) in place of a host file. */
  | { kind: 'hide-file'; path: string }
  | { kind: 'read-only'; path: string }
  | { kind: 'writable'; path: string };

export interface BwrapPlan {
  mounts: MountOp[];
  network: NetworkMode;
  cwd: string;
  command: string[];
}

/** For equal paths the later kind wins, as the layout lists them: hidden, then readOnly, then writable. */
const KIND_ORDER: Record<MountOp['kind'], number> = { 'hide-dir': 0, 'hide-file': 0, 'read-only': 1, writable: 2 };

/**
 * The bwrap argv for one exec. bwrap applies mounts in argument order and a later mount covers an
 * earlier one, so mounts go shallowest first: a read-only or writable path inside a hidden one (or
 * a hidden path inside a writable one) stays visible whatever list it came from.
 */
export function buildBwrapArgs(plan: BwrapPlan): string[] {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    ...(plan.network === 'host' ? ['--share-net'] : []),
    // The command's supervisor becomes the namespace's init. Otherwise bwrap's own init reports
    // the exit as soon as the command ends, and bwrap returns while the processes the command
    // left behind are still being killed; with the init exiting, the kernel kills them first.
    '--as-pid-1',
    // Without this, a sandbox started by root keeps full capabilities in its user namespace and
    // can simply unmount the hiding tmpfs or remount / read-write.
    '--cap-drop',
    'ALL',
    '--clearenv',
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    '--tmpfs', '/tmp',
  ];
  for (const mount of orderMounts(plan.mounts)) args.push(...mountArgs(mount));
  // Last, because mounting inside a hidden directory needs it writable until then.
  for (const mount of plan.mounts) if (mount.kind === 'hide-dir') args.push('--remount-ro', mount.path);
  args.push('--chdir', plan.cwd, '--', ...plan.command);
  return args;
}

function orderMounts(mounts: readonly MountOp[]): MountOp[] {
  return [...mounts].sort((a, b) => depth(a.path) - depth(b.path) || KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);
}

function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}

function mountArgs(mount: MountOp): string[] {
  switch (mount.kind) {
    case 'hide-dir':
      return ['--tmpfs', mount.path];
    case 'hide-file':
      return ['--ro-bind', '/dev/null', mount.path];
    case 'read-only':
      return ['--ro-bind', mount.path, mount.path];
    case 'writable':
      return ['--bind', mount.path, mount.path];
  }
}
