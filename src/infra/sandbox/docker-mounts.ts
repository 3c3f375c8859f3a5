import { mkdir, realpath, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { allowlistMounts, isWithin } from './bwrap-allowlist.js';
import type { HostView } from './bwrap-allowlist.js';
import type { NetworkMode, SandboxLayout } from './executor.js';

/**
 * The binds of one container: the host's toolchain view (the same allowlist as bwrap) when there
 * is no task image, the layout at the same absolute paths, and hidden paths covered. Docker mounts
 * only what exists on the host, and cannot make a mount point inside a read-only mount, so what
 * bwrap synthesizes becomes files in the executor's own directory (`filesDir`): passwd and group,
 * an empty file for hidden files, and for each hidden directory an empty skeleton that already
 * holds the mount points of whatever is shown inside it.
 */
export interface DockerBind {
  source: string;
  target: string;
  readOnly: boolean;
}

export interface MountPlanInput {
  layout: SandboxLayout;
  network: NetworkMode;
  /** The host's toolchain view to show; undefined for a task image, which brings its own. */
  hostView?: HostView;
  /** A directory of this executor's, on the host, for synthesized files. */
  filesDir: string;
  /** The user the commands run as, named in the synthesized passwd. */
  user: { uid: number; gid: number };
}

/** Files docker manages itself in every container (from the network mode), never bound over. */
const ENGINE_FILES = new Set(['/etc/hosts', '/etc/resolv.conf', '/etc/hostname']);

type Role = 'allowlist' | 'hidden' | 'layout';
interface Planned extends DockerBind {
  role: Role;
  isDir: boolean;
}

export async function planBinds(input: MountPlanInput): Promise<DockerBind[]> {
  const { layout, network, hostView } = input;
  const planned: Planned[] = [];
  // Credential files inside a shown toolchain: covered like the layout's hidden paths.
  const allowlistHidden: string[] = [];
  if (hostView) {
    for (const op of allowlistMounts(network, hostView)) {
      if (ENGINE_FILES.has(op.path)) continue;
      if (op.kind === 'hide-dir' || op.kind === 'hide-file') allowlistHidden.push(op.path);
      if (op.kind === 'read-only') planned.push(await bind(op.source ?? op.path, op.path, true, 'allowlist'));
      // A symlink cannot be made in the image: its target is bound in its place.
      if (op.kind === 'symlink') planned.push(await bind(await realpath(op.path), op.path, true, 'allowlist'));
    }
    const files = join(input.filesDir, 'etc');
    await mkdir(files, { recursive: true });
    await writeFile(join(files, 'passwd'), passwd(input.user, layout.home));
    await writeFile(join(files, 'group'), group(input.user));
    planned.push(await bind(join(files, 'passwd'), '/etc/passwd', true, 'allowlist'));
    planned.push(await bind(join(files, 'group'), '/etc/group', true, 'allowlist'));
  }

  const layoutBinds: Planned[] = [];
  for (const path of layout.readOnly) layoutBinds.push(await bind(await existing(path, 'readOnly'), undefined, true, 'layout'));
  for (const path of [...layout.writable, layout.home]) layoutBinds.push(await bind(await existing(path, 'writable'), undefined, false, 'layout'));
  // Shown at another path too (a container-native task's workdir, a verifier's /tests): same host directory, two names.
  for (const mount of layout.mounts ?? []) {
    if (!isAbsolute(mount.target)) throw new Error(`sandbox layout: mount target must be absolute: ${mount.target}`);
    layoutBinds.push(await bind(await existing(mount.source, 'mounts'), mount.target, mount.readOnly, 'layout'));
  }
  if (network === 'gateway') {
    if (!layout.gateway) throw new Error("exec: network 'gateway' needs layout.gateway");
    layoutBinds.push(await bind(await existing(layout.gateway.socketPath, 'gateway.socketPath'), undefined, true, 'layout'));
  }

  const visible = [...planned, ...layoutBinds].map((entry) => entry.target);
  const hiddenPaths = [...allowlistHidden, ...layout.hidden, ...(network !== 'gateway' && layout.gateway ? [layout.gateway.socketPath] : [])];
  const hidden: Planned[] = [];
  for (const path of hiddenPaths) {
    if (!isAbsolute(path)) throw new Error(`sandbox layout: hidden path must be absolute: ${path}`);
    const real = await realpath(path).catch(() => undefined);
    if (real === undefined || !visible.some((root) => isWithin(real, root))) continue;
    const isDir = (await stat(real)).isDirectory();
    hidden.push({ source: '', target: real, readOnly: true, role: 'hidden', isDir });
  }

  // Same order of precedence as bwrap: for one path the layout beats hidden beats the allowlist.
  const binds = dedupe([...planned, ...hidden, ...layoutBinds]);
  let index = 0;
  for (const entry of binds) {
    if (entry.role !== 'hidden') continue;
    const cover = join(input.filesDir, `hidden-${index++}`);
    if (entry.isDir) {
      await mkdir(cover, { recursive: true });
      // Mount points of everything shown inside, which docker could not make in a read-only bind.
      for (const inner of binds) {
        if (inner === entry || !isWithin(inner.target, entry.target)) continue;
        const point = join(cover, relative(entry.target, inner.target));
        if (inner.isDir) await mkdir(point, { recursive: true });
        else {
          await mkdir(dirname(point), { recursive: true });
          await writeFile(point, '');
        }
      }
    } else {
      await writeFile(cover, '');
    }
    entry.source = cover;
  }
  return binds.map(({ source, target, readOnly }) => ({ source, target, readOnly }));
}

async function bind(source: string, target: string | undefined, readOnly: boolean, role: Role): Promise<Planned> {
  const isDir = (await stat(source)).isDirectory();
  return { source, target: target ?? source, readOnly, role, isDir };
}

async function existing(path: string, field: string): Promise<string> {
  if (!isAbsolute(path)) throw new Error(`sandbox layout: ${field} path must be absolute: ${path}`);
  try {
    return await realpath(path);
  } catch {
    throw new Error(`sandbox layout: ${field} path does not exist: ${path}`);
  }
}

function dedupe(binds: Planned[]): Planned[] {
  const byTarget = new Map<string, Planned>();
  for (const entry of binds) {
    byTarget.delete(entry.target);
    byTarget.set(entry.target, entry);
  }
  return [...byTarget.values()];
}

/** The invoking user (the container runs as it), and `nobody` for everyone else's files. */
function passwd(user: { uid: number; gid: number }, home: string): string {
  const name = user.uid === 0 ? 'root' : 'crucible';
  return [`${name}:x:${user.uid}:${user.gid}:Crucible sandbox:${home}:/bin/sh`, 'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin', ''].join('\n');
}

function group(user: { uid: number; gid: number }): string {
  const name = user.gid === 0 ? 'root' : 'crucible';
  return `${name}:x:${user.gid}:\nnogroup:x:65534:\n`;
}
