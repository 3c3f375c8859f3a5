import type { TreeOverlay } from './executor.js';
import { findOnPath } from './find-on-path.js';

/**
 * What makes a bwrap sandbox see a tree as an overlay: `unshare` gives the command a user and
 * mount namespace of its own (unprivileged: the harness's uid is root only in there), where
 * overlayfs is mounted over the target before bwrap starts in it and binds the target as the
 * workspace. The mount lives and dies with that namespace: the host never sees it, nothing else
 * shares it, and no process of the sandbox (a nested user namespace without capabilities) can
 * unmount it or reach the lower tree, which overlayfs itself never writes.
 *
 * `userxattr` keeps overlayfs's own marks (opaque directories) in `user.overlay.*`, which an
 * unprivileged namespace may set. The result is the argv to put before bwrap's.
 */
export function overlayMountArgv(overlay: TreeOverlay, path = process.env.PATH): string[] {
  // 125: the mount failed, before bwrap ran; the executor reports it as the sandbox's failure.
  return overlayNamespaceArgv(overlay, 'exec "$@"', path);
}

/**
 * The argv of a process that mounts the overlay in a namespace of its own and then holds it
 * (overlay-holder.ts): it prints `ready` once the mount is made, and lives until its stdin ends.
 */
export function overlayHolderArgv(overlay: TreeOverlay, path = process.env.PATH): string[] {
  return overlayNamespaceArgv(overlay, `echo ${HOLDER_READY}; while read -r _; do :; done`, path);
}

export const HOLDER_READY = 'overlay-ready';

function overlayNamespaceArgv(overlay: TreeOverlay, then: string, path: string | undefined): string[] {
  const unshare = findOnPath('unshare', path ?? '');
  const mount = findOnPath('mount', path ?? '');
  if (unshare === undefined || mount === undefined) throw new Error('overlay: unshare and mount (util-linux) must be on PATH');
  if (!overlayPathsMountable(overlay)) throw new Error(`overlay: a path holds a character mount options cannot carry: ${JSON.stringify(overlay)}`);
  const options = `lowerdir=${overlay.lower},upperdir=${overlay.upper},workdir=${overlay.work},userxattr`;
  const script = `m=$1; o=$2; t=$3; shift 3; "$m" -t overlay overlay -o "$o" "$t" || exit 125; ${then}`;
  return [
    unshare,
    '--user',
    '--map-root-user',
    '--mount',
    '--propagation',
    'private',
    '--',
    '/bin/sh',
    '-c',
    script,
    'overlay-mount',
    mount,
    options,
    overlay.target,
  ];
}

/**
 * The argv that puts a command into the user and mount namespace of an overlay's holder (the
 * process `pid`), where the overlay is mounted already. The harness owns that user namespace, so
 * it holds its capabilities there without being root on the host; its own uid stays as it is.
 */
export function enterHolderArgv(pid: number, wd?: string, path = process.env.PATH): string[] {
  const nsenter = findOnPath('nsenter', path ?? '');
  if (nsenter === undefined) throw new Error('overlay: nsenter (util-linux) must be on PATH');
  const enter = [nsenter, `--target=${pid}`, '--user', '--mount', '--preserve-credentials', '--'];
  // Not nsenter's --wd: it opens the directory before entering, which gives the host's mount point
  // beneath the overlay. A cd once inside resolves it in the holder's namespace.
  return wd === undefined ? enter : [...enter, '/bin/sh', '-c', 'cd -- "$1" && shift && exec "$@"', 'enter', wd];
}

/** Mount options are split at commas, and overlayfs splits lower directories at colons: a path holding one is given as a copy. */
export function overlayPathsMountable(overlay: Pick<TreeOverlay, 'lower' | 'upper' | 'work' | 'target'>): boolean {
  return [overlay.lower, overlay.upper, overlay.work, overlay.target].every((p) => p.startsWith('/') && !/[,:\\\n]/.test(p));
}
