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
  const unshare = findOnPath('unshare', path ?? '');
  const mount = findOnPath('mount', path ?? '');
  if (unshare === undefined || mount === undefined) throw new Error('overlay: unshare and mount (util-linux) must be on PATH');
  if (!overlayPathsMountable(overlay)) throw new Error(`overlay: a path holds a character mount options cannot carry: ${JSON.stringify(overlay)}`);
  const options = `lowerdir=${overlay.lower},upperdir=${overlay.upper},workdir=${overlay.work},userxattr`;
  // 125: the mount failed, before bwrap ran; the executor reports it as the sandbox's failure.
  const script = 'm=$1; o=$2; t=$3; shift 3; "$m" -t overlay overlay -o "$o" "$t" || exit 125; exec "$@"';
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

/** Mount options are split at commas, and overlayfs splits lower directories at colons: a path holding one is given as a copy. */
export function overlayPathsMountable(overlay: Pick<TreeOverlay, 'lower' | 'upper' | 'work' | 'target'>): boolean {
  return [overlay.lower, overlay.upper, overlay.work, overlay.target].every((p) => p.startsWith('/') && !/[,:\\\n]/.test(p));
}
