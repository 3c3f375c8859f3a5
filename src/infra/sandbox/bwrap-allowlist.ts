import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { MountOp } from './bwrap-args.js';
import { credentialsWithin } from './credential-paths.js';
import { homeToolchainDirs } from './home-toolchains.js';
import type { NetworkMode } from './executor.js';

/**
 * What of the host a bwrap sandbox sees besides the layout: the system directories toolchains run
 * from, the few /etc files they read, and the toolchains on PATH that live elsewhere. Everything
 * else (/root, /home, /var, /srv, /mnt, /run, /sys, the rest of /etc) is simply absent.
 */
export const SANDBOX_UID = 1000;
export const SANDBOX_GID = 1000;
const SANDBOX_USER = 'crucible';

/** Bound read-only where they exist; on merged-/usr systems all but /usr are symlinks into it. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * /etc entries toolchains read: the dynamic linker's cache and config, `update-alternatives`
 * links (/usr/bin/awk and friends point there), TLS roots (Debian and Fedora layouts), the time
 * zone, name-service config, protocol and service names, and Debian's python3 site config.
 */
const ETC_ENTRIES = [
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'alternatives',
  'ssl',
  'ca-certificates',
  'ca-certificates.conf',
  'pki',
  'crypto-policies',
  'localtime',
  'timezone',
  'nsswitch.conf',
  'host.conf',
  'protocols',
  'services',
];
const ETC_PREFIXES = ['python3'];
/** Only the host network needs the resolver and the package registries' settings. */
const ETC_HOST_NETWORK = ['resolv.conf', 'hosts', 'gai.conf', 'pip.conf', 'npmrc'];

/** A PATH entry named so is a toolchain's bin directory; the toolchain is its parent. */
const BIN_NAMES = new Set(['bin', 'sbin', 'shims']);

export interface HostView {
  /** The command's PATH, whose toolchains must be reachable. */
  path: string;
  pyenvRoot?: string;
  /** The node that runs the gateway forwarder. */
  execPath: string;
  /** The harness user's home: toolchains there are bound at their narrowest (home-toolchains.ts). */
  userHome: string;
  /** The sandbox's HOME, named in the synthesized passwd. */
  sandboxHome: string;
}

export function allowlistMounts(network: NetworkMode, view: HostView): MountOp[] {
  const mounts: MountOp[] = [];
  for (const dir of SYSTEM_DIRS) {
    const op = exposeAs(dir, ['/usr']);
    if (op) mounts.push(op);
  }
  const visible = mounts.filter((op) => op.kind === 'read-only').map((op) => op.path);
  const etcNames = [...ETC_ENTRIES, ...etcWithPrefix(ETC_PREFIXES), ...(network === 'host' ? ETC_HOST_NETWORK : [])];
  for (const name of etcNames) {
    const op = exposeAs(join('/etc', name), visible);
    if (op) mounts.push(op);
  }
  mounts.push({ kind: 'data', path: '/etc/passwd', content: passwd(view.sandboxHome) });
  mounts.push({ kind: 'data', path: '/etc/group', content: `${SANDBOX_USER}:x:${SANDBOX_GID}:\nnogroup:x:65534:\n` });
  if (network !== 'host') mounts.push({ kind: 'data', path: '/etc/hosts', content: HOSTS });
  const roots = toolchainRoots(view, visible);
  for (const root of roots) mounts.push({ kind: 'read-only', path: root });
  // Deeper than the roots, so bwrap mounts these over them (and docker covers them the same way).
  for (const hit of roots.flatMap(credentialsWithin)) {
    const real = resolved(hit.path);
    if (real !== undefined && roots.some((root) => isWithin(real, root))) mounts.push({ kind: hit.isDir ? 'hide-dir' : 'hide-file', path: real });
  }
  return mounts;
}

const HOSTS = '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n';

/** The sandbox user, and `nobody` for the host's other users, whose files show as 65534. */
function passwd(home: string): string {
  return [
    `${SANDBOX_USER}:x:${SANDBOX_UID}:${SANDBOX_GID}:Crucible sandbox:${home}:/bin/sh`,
    'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin',
    '',
  ].join('\n');
}

/**
 * The mount that shows host path `path` at the same place: a symlink stays a symlink when its
 * target is visible anyway (tools read /etc/localtime's link to name the zone), else its target
 * is bound there. Undefined when the path does not exist.
 */
function exposeAs(path: string, visible: readonly string[]): MountOp | undefined {
  let real: string;
  try {
    real = realpathSync.native(path);
  } catch {
    return undefined;
  }
  if (lstatSync(path).isSymbolicLink() && visible.some((root) => isWithin(real, root))) {
    return { kind: 'symlink', path, target: readlinkSync(path) };
  }
  return real === path ? { kind: 'read-only', path } : { kind: 'read-only', path, source: real };
}

function etcWithPrefix(prefixes: readonly string[]): string[] {
  try {
    return readdirSync('/etc').filter((name) => prefixes.some((prefix) => name.startsWith(prefix)));
  } catch {
    return [];
  }
}

/**
 * Directories to bind for the toolchains the command may run: for each PATH entry (and
 * PYENV_ROOT, and node's own directory) outside the system directories, its toolchain root. In the
 * user's home that is the narrowest directory that runs it (home-toolchains.ts), never the top
 * directory, where credentials live (~/.cargo/credentials.toml); elsewhere the parent of a bin
 * directory (/opt/node-20 for /opt/node-20/bin), unless that parent is a top-level or a user's home
 * directory, when only the entry itself is bound.
 */
export function toolchainRoots(view: HostView, visible: readonly string[]): string[] {
  const candidates = [...view.path.split(':'), view.pyenvRoot ?? '', dirname(resolved(view.execPath) ?? view.execPath)];
  const homes = userHomes(view.userHome);
  const roots: string[] = [];
  for (const candidate of candidates) {
    if (!isAbsolute(candidate)) continue;
    const real = resolved(candidate);
    if (real === undefined || visible.some((root) => isWithin(real, root))) continue;
    for (const root of toolchainRoot(real, view.userHome, homes)) if (!roots.includes(root)) roots.push(root);
  }
  return roots.filter((root) => !roots.some((other) => other !== root && isWithin(root, other)));
}

function toolchainRoot(dir: string, userHome: string, homes: ReadonlySet<string>): string[] {
  const rel = relative(userHome, dir);
  if (rel === '') return [];
  if (!rel.startsWith('..') && !isAbsolute(rel)) return homeToolchainDirs(userHome, rel.split(sep));
  const parent = dirname(dir);
  if (BIN_NAMES.has(basename(dir)) && depth(parent) >= 2 && !homes.has(parent)) return [parent];
  return depth(dir) >= 1 && !homes.has(dir) ? [dir] : [];
}

function userHomes(userHome: string): Set<string> {
  const homes = new Set([userHome]);
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const home = line.split(':')[5];
      if (home && home !== '/') homes.add(home);
    }
  } catch {
    // No passwd to learn homes from; the user's own is still known.
  }
  return homes;
}

function resolved(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

export function isWithin(path: string, root: string): boolean {
  return path === root || path.startsWith(root === '/' ? '/' : `${root}/`);
}

function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}
