import { SANDBOX_GID, SANDBOX_UID } from './bwrap-allowlist.js';
import type { NetworkMode } from './executor.js';

/**
 * One mount on the sandbox's empty root. Paths are absolute and already resolved; parent
 * directories that are not themselves mounted are made by bwrap, empty.
 */
export type MountOp =
  /** An empty read-only directory in place of a visible directory. */
  | { kind: 'hide-dir'; path: string }
  /** An empty file (/dev/null) in place of a visible file. */
  | { kind: 'hide-file'; path: string }
  /** Host `source` (default: the same path) shown read-only at `path`. */
  | { kind: 'read-only'; path: string; source?: string }
  | { kind: 'writable'; path: string }
  | { kind: 'symlink'; path: string; target: string }
  /** A read-only file made of `content`, which bwrap reads from a descriptor. */
  | { kind: 'data'; path: string; content: string };

export interface BwrapPlan {
  mounts: MountOp[];
  network: NetworkMode;
  cwd: string;
  command: string[];
  /** Ask bwrap for its sandbox's host pid (`--info-fd`), on the descriptor after the data files. */
  info?: boolean;
}

export interface BwrapInvocation {
  args: string[];
  /** Contents of the `data` mounts, in order: the first is read from fd 4, the next from 5, … */
  files: string[];
  /** With `info`: the descriptor bwrap writes its info to, the one after the files. */
  infoFd?: number;
}

const FIRST_DATA_FD = 4;

/** For equal paths the later kind wins, as the layout lists them: hidden, then readOnly, then writable. */
const KIND_ORDER: Record<MountOp['kind'], number> = {
  symlink: 0,
  data: 0,
  'hide-dir': 1,
  'hide-file': 1,
  'read-only': 2,
  writable: 3,
};

/**
 * The bwrap argv for one exec. bwrap applies mounts in argument order and a later mount covers an
 * earlier one, so mounts go shallowest first: a read-only or writable path inside a hidden one (or
 * a hidden path inside a writable one) stays visible whatever list it came from.
 */
export function buildBwrapArgs(plan: BwrapPlan): BwrapInvocation {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    // Explicit, so that bwrap fails rather than silently running without a user namespace.
    '--unshare-user',
    // Root outside is an ordinary user inside, named in the synthesized /etc/passwd.
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_GID),
    ...(plan.network === 'host' ? ['--share-net'] : []),
    // The command's supervisor becomes the namespace's init. Otherwise bwrap's own init reports
    // the exit as soon as the command ends, and bwrap returns while the processes the command
    // left behind are still being killed; with the init exiting, the kernel kills them first.
    '--as-pid-1',
    // Without this, a sandbox started by root keeps full capabilities in its user namespace and
    // could remount what it sees read-write or unmount what hides.
    '--cap-drop',
    'ALL',
    '--clearenv',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
  ];
  const files: string[] = [];
  for (const mount of orderMounts(plan.mounts)) {
    if (mount.kind === 'data') {
      args.push('--perms', '0644', '--ro-bind-data', String(FIRST_DATA_FD + files.length), mount.path);
      files.push(mount.content);
    } else {
      args.push(...mountArgs(mount));
    }
  }
  // Last, because mounting inside a hidden directory, or making mount points on the root, needs
  // them writable until then.
  for (const mount of plan.mounts) if (mount.kind === 'hide-dir') args.push('--remount-ro', mount.path);
  args.push('--remount-ro', '/');
  const infoFd = plan.info ? FIRST_DATA_FD + files.length : undefined;
  if (infoFd !== undefined) args.push('--info-fd', String(infoFd));
  args.push('--chdir', plan.cwd, '--', ...plan.command);
  return { args, files, ...(infoFd !== undefined ? { infoFd } : {}) };
}

function orderMounts(mounts: readonly MountOp[]): MountOp[] {
  return [...mounts].sort((a, b) => depth(a.path) - depth(b.path) || KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);
}

function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}

function mountArgs(mount: Exclude<MountOp, { kind: 'data' }>): string[] {
  switch (mount.kind) {
    case 'hide-dir':
      return ['--tmpfs', mount.path];
    case 'hide-file':
      return ['--ro-bind', '/dev/null', mount.path];
    case 'read-only':
      return ['--ro-bind', mount.source ?? mount.path, mount.path];
    case 'writable':
      return ['--bind', mount.path, mount.path];
    case 'symlink':
      return ['--symlink', mount.target, mount.path];
  }
}
