import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, copyFile, lstat, mkdir, mkdtemp, readdir, readFile, readlink, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { isWithin } from './bwrap-allowlist.js';
import { HELPER_DIR, HELPER_ENV } from './docker-runtime.js';
import { SandboxSetupError } from './errors.js';
import type { SandboxLayout } from './executor.js';

/**
 * The workspace seam of an engine that does not share this machine's paths (DOCKER_HOST over TCP
 * or SSH): nothing of the host is bound in. Each directory of the layout becomes a volume on the
 * engine, filled from the host by an archive (archive in) through a stager container that is
 * created, never started, and holds every volume; after each command the writable ones come back
 * by an archive (archive out) that is applied to the host directory as a difference, so the files
 * a command did not touch stay as they were. Hidden paths are never sent.
 */
export interface StagedVolume {
  name: string;
  /** The host directory (real path) the volume mirrors. */
  source: string;
  /** Where the phase container sees it: the source's own path, and any layout.mounts target. */
  targets: string[];
  /** Written back to the host after each command; read-only in the container otherwise. */
  writable: boolean;
  /** Paths inside `source` (relative) never sent nor written back: hidden ones, nested volumes. */
  skip: string[];
  /** The host tree's signature when host and volume last agreed. */
  synced?: string;
}

/** True when the engine can see this machine's paths: a Unix socket can, TCP and SSH cannot. */
export function engineSharesHostPaths(client: Docker | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  if (client) return typeof (client.modem as { socketPath?: unknown }).socketPath === 'string';
  const host = env.DOCKER_HOST ?? '';
  return host === '' || host.startsWith('unix://') || host.startsWith('npipe://');
}

/** One volume per host directory of the layout; a directory shown at two paths is one volume mounted twice. */
export async function planVolumes(layout: SandboxLayout): Promise<StagedVolume[]> {
  const prefix = `crucible-${process.pid}-${randomBytes(4).toString('hex')}`;
  const entries: { source: string; target: string; writable: boolean }[] = [];
  for (const path of layout.readOnly) entries.push({ source: await existing(path), target: await existing(path), writable: false });
  for (const path of [...layout.writable, layout.home]) entries.push({ source: await existing(path), target: await existing(path), writable: true });
  for (const mount of layout.mounts ?? []) {
    if (!isAbsolute(mount.target)) throw new Error(`sandbox layout: mount target must be absolute: ${mount.target}`);
    entries.push({ source: await existing(mount.source), target: mount.target, writable: !mount.readOnly });
  }
  const bySource = new Map<string, StagedVolume>();
  for (const entry of entries) {
    const volume = bySource.get(entry.source) ?? { name: `${prefix}-${bySource.size}`, source: entry.source, targets: [], writable: false, skip: [] };
    if (!volume.targets.includes(entry.target)) volume.targets.push(entry.target);
    volume.writable ||= entry.writable;
    bySource.set(entry.source, volume);
  }
  const volumes = [...bySource.values()];
  const hidden = await Promise.all(layout.hidden.map((path) => realpath(path).catch(() => path)));
  for (const volume of volumes) {
    const inner = [...hidden, ...volumes.filter((other) => other !== volume).map((other) => other.source)];
    volume.skip = inner.filter((path) => path !== volume.source && isWithin(path, volume.source)).map((path) => relative(volume.source, path));
  }
  return volumes;
}

/**
 * The stager: a container never started that mounts every volume under /stage, through which
 * archives go in and out, whether or not the phase container still runs.
 */
export class Stager {
  private constructor(
    private readonly client: Docker,
    private readonly stager: Docker.Container,
    readonly volumes: StagedVolume[],
  ) {}

  /** Creates the volumes and fills each from its host directory. */
  static async fill(client: Docker, image: string, volumes: StagedVolume[], labels: Record<string, string>): Promise<Stager> {
    for (const volume of volumes) await client.createVolume({ Name: volume.name, Labels: labels });
    let container: Docker.Container | undefined;
    try {
      container = await client.createContainer({
        Image: image,
        // Never started: it only holds the volumes for the archive calls.
        Entrypoint: ['/crucible-stager-never-runs'],
        Cmd: [],
        Labels: labels,
        HostConfig: { Mounts: volumes.map((volume, i) => ({ Type: 'volume' as const, Source: volume.name, Target: stagePath(i) })) },
      });
      const stager = new Stager(client, container, volumes);
      for (const [i, volume] of volumes.entries()) await stager.send(i, volume);
      return stager;
    } catch (error) {
      await container?.remove({ force: true }).catch(() => undefined);
      await removeVolumes(client, volumes);
      throw new SandboxSetupError(`docker could not copy the workspace into the engine: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The writable volumes whose host directory changed since they last agreed with it. */
  async changedOnHost(): Promise<StagedVolume[]> {
    const changed: StagedVolume[] = [];
    for (const volume of this.volumes) if (volume.writable && (await treeSignature(volume.source, volume.skip)) !== volume.synced) changed.push(volume);
    return changed;
  }

  /** Archive in: the host directory into its (emptied) volume. */
  async resend(volume: StagedVolume): Promise<void> {
    await this.send(this.volumes.indexOf(volume), volume);
  }

  /** Archive out: every writable volume's tree applied to its host directory as a difference. */
  async receive(): Promise<void> {
    for (const [i, volume] of this.volumes.entries()) {
      if (!volume.writable) continue;
      const archive = (await this.stager.getArchive({ path: stagePath(i) })) as Readable;
      const landing = await mkdtemp(join(tmpdir(), 'crucible-archive-out-'));
      try {
        await untar(archive, landing);
        await mirror(landing, volume.source, '', new Set(volume.skip));
      } finally {
        await rm(landing, { recursive: true, force: true });
      }
      volume.synced = await treeSignature(volume.source, volume.skip);
    }
  }

  /** Removes the stager and the volumes; never throws. */
  async remove(): Promise<void> {
    await this.stager.remove({ force: true }).catch(() => undefined);
    await removeVolumes(this.client, this.volumes);
  }

  private async send(i: number, volume: StagedVolume): Promise<void> {
    const signature = await treeSignature(volume.source, volume.skip);
    await this.stager.putArchive(tarOf(volume.source, volume.skip, false), { path: stagePath(i) });
    volume.synced = signature;
  }
}

function stagePath(i: number): string {
  return `/stage/${i}`;
}

async function removeVolumes(client: Docker, volumes: StagedVolume[]): Promise<void> {
  await Promise.all(
    volumes.map((volume) =>
      client
        .getVolume(volume.name)
        .remove({ force: true })
        .catch(() => undefined),
    ),
  );
}

async function existing(path: string): Promise<string> {
  if (!isAbsolute(path)) throw new Error(`sandbox layout: path must be absolute: ${path}`);
  try {
    return await realpath(path);
  } catch {
    throw new Error(`sandbox layout: path does not exist: ${path}`);
  }
}

/** The host directory as a tar stream (the host's own tar), without the skipped paths. */
function tarOf(dir: string, skip: string[], follow: boolean): Readable {
  const args = ['-c', ...(follow ? ['-h'] : []), '-C', dir, '--anchored', ...skip.map((path) => `--exclude=./${path}`), '.'];
  const child = spawn('tar', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.on('close', (code) => {
    if (code !== 0) child.stdout.destroy(new Error(`tar of ${dir} failed: ${stderr.trim() || `exit ${code}`}`));
  });
  return child.stdout;
}

/**
 * Unpacks an archive the engine made of a volume. The host's tar never writes outside `dir`: it
 * refuses `..` and absolute names, and it creates a link that points out of the tree only after
 * every file, so no entry is written through one.
 */
function untar(archive: Readable, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('tar', ['-x', '-C', dir, '--no-same-owner', '--strip-components=1'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`unpacking the workspace failed: ${stderr.trim() || `exit ${code}`}`))));
    archive.on('error', (error) => child.stdin.destroy(error));
    archive.pipe(child.stdin);
  });
}

/**
 * Makes `to` hold what `from` holds, touching only what differs: files by content and mode,
 * symlinks by target (never followed), directories recursively; what `from` lacks is deleted.
 * Anything but files, directories and symlinks is left out.
 */
async function mirror(from: string, to: string, rel: string, skip: ReadonlySet<string>): Promise<void> {
  const names = new Set([...(await readdir(join(from, rel)).catch(() => [])), ...(await readdir(join(to, rel)).catch(() => []))]);
  for (const name of [...names].sort()) {
    const path = rel === '' ? name : `${rel}${sep}${name}`;
    if (skip.has(path)) continue;
    const source = await lstat(join(from, path)).catch(() => undefined);
    const target = await lstat(join(to, path)).catch(() => undefined);
    const dest = join(to, path);
    if (!source || !(source.isFile() || source.isDirectory() || source.isSymbolicLink())) {
      if (target) await rm(dest, { recursive: true, force: true });
      continue;
    }
    if (source.isDirectory()) {
      if (target && !target.isDirectory()) await rm(dest, { recursive: true, force: true });
      if (!target?.isDirectory()) await mkdir(dest);
      if (!target?.isDirectory() || modeOf(target) !== modeOf(source)) await chmod(dest, modeOf(source));
      await mirror(from, to, path, skip);
    } else if (source.isSymbolicLink()) {
      const link = await readlink(join(from, path));
      if (target?.isSymbolicLink() && (await readlink(dest)) === link) continue;
      if (target) await rm(dest, { recursive: true, force: true });
      await symlink(link, dest);
    } else {
      if (target?.isFile() && target.size === source.size && (await readFile(dest)).equals(await readFile(join(from, path)))) {
        if (modeOf(target) !== modeOf(source)) await chmod(dest, modeOf(source));
        continue;
      }
      if (target) await rm(dest, { recursive: true, force: true });
      await copyFile(join(from, path), dest);
      await chmod(dest, modeOf(source));
    }
  }
}

function modeOf(stats: Stats): number {
  return stats.mode & 0o7777;
}

/** What a host tree holds, by name, kind, size, mode, time and link target: equal when nothing changed. */
export async function treeSignature(dir: string, skip: string[]): Promise<string> {
  const hash = createHash('sha256');
  const skipped = new Set(skip);
  const walk = async (rel: string): Promise<void> => {
    const names = (await readdir(join(dir, rel)).catch(() => [] as string[])).sort();
    for (const name of names) {
      const path = rel === '' ? name : `${rel}${sep}${name}`;
      if (skipped.has(path)) continue;
      const stats = await lstat(join(dir, path)).catch(() => undefined);
      if (!stats) continue;
      const link = stats.isSymbolicLink() ? await readlink(join(dir, path)) : '';
      hash.update(`${path}\0${stats.mode}\0${stats.size}\0${stats.mtimeMs}\0${link}\n`);
      if (stats.isDirectory()) await walk(path);
    }
  };
  await walk('');
  return hash.digest('hex');
}

/**
 * Empties the volumes' directories in the running container before a fresh archive in, so what
 * the host deleted goes too; nested volumes and hidden paths (`skip`) are left as they are.
 */
export async function emptyInContainer(container: Docker.Container, node: string[], user: string, volumes: StagedVolume[]): Promise<void> {
  const orders = JSON.stringify(volumes.map((volume) => ({ dir: volume.targets[0], skip: volume.skip })));
  const exec = await container.exec({ Cmd: [...node, '-e', EMPTY_SCRIPT, orders], User: user, AttachStdout: true, AttachStderr: true, Env: HELPER_ENV });
  const stream = (await exec.start({})) as Readable;
  let output = '';
  stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', reject);
  });
  const { ExitCode } = await exec.inspect();
  if (ExitCode !== 0) throw new SandboxSetupError(`docker could not refresh the workspace in the container: ${output.trim() || `exit ${ExitCode}`}`);
}

/** Run by the helpers' node: removes every entry under each dir but the skipped paths (and what leads to them). */
const EMPTY_SCRIPT = `
const fs = require('fs');
const path = require('path');
const empty = (dir, rel, skip) => {
  for (const name of fs.readdirSync(path.join(dir, rel))) {
    const entry = rel === '' ? name : rel + '/' + name;
    if (skip.includes(entry)) continue;
    if (skip.some((s) => s.startsWith(entry + '/'))) empty(dir, entry, skip);
    else fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
  }
};
for (const { dir, skip } of JSON.parse(process.argv[1])) empty(dir, '', skip);
`;

/**
 * Crucible's helpers on an engine (the host's node, its loader and libraries, docker-init, the
 * scripts), in one volume per content, kept there like an image: sent once, by the first executor
 * that finds it missing or incomplete, and mounted read-only at HELPER_DIR by every container.
 */
export function helperVolume(client: Docker, image: string, files: HelperFile[]): Promise<string> {
  let volumes = helperVolumes.get(client);
  if (!volumes) helperVolumes.set(client, (volumes = new Map()));
  const known = volumes;
  const name = `crucible-helpers-${contentKey(files)}`;
  let ready = known.get(name);
  if (!ready) {
    ready = fillHelperVolume(client, image, name, files).then(() => name);
    known.set(name, ready);
    ready.catch(() => known.get(name) === ready && known.delete(name));
  }
  return ready;
}

/** A file of the helpers: where it is on the host, where it goes under HELPER_DIR. */
export interface HelperFile {
  source: string;
  target: string;
}

const helperVolumes = new WeakMap<Docker, Map<string, Promise<string>>>();
/** Written last: a volume without it was being filled when its filler stopped. */
const COMPLETE_MARK = '.complete';

async function fillHelperVolume(client: Docker, image: string, name: string, files: HelperFile[]): Promise<void> {
  await client.createVolume({ Name: name });
  const staging = await mkdtemp(join(tmpdir(), 'crucible-helpers-'));
  let container: Docker.Container | undefined;
  try {
    container = await client.createContainer({
      Image: image,
      Entrypoint: ['/crucible-stager-never-runs'],
      Cmd: [],
      HostConfig: { Mounts: [{ Type: 'volume' as const, Source: name, Target: stagePath(0) }] },
    });
    const complete = await container.getArchive({ path: `${stagePath(0)}/${COMPLETE_MARK}` }).then(
      (archive) => ((archive as Readable).resume(), true),
      () => false,
    );
    if (complete) return;
    for (const file of files) {
      const at = join(staging, 'files', relative(HELPER_DIR, file.target));
      await mkdir(join(at, '..'), { recursive: true });
      await symlink(file.source, at);
    }
    await container.putArchive(tarOf(join(staging, 'files'), [], true), { path: stagePath(0) });
    await mkdir(join(staging, 'mark'));
    await writeFile(join(staging, 'mark', COMPLETE_MARK), '');
    await container.putArchive(tarOf(join(staging, 'mark'), [], false), { path: stagePath(0) });
  } catch (error) {
    throw new SandboxSetupError(`docker could not copy Crucible's helpers into the engine: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await container?.remove({ force: true }).catch(() => undefined);
    await rm(staging, { recursive: true, force: true });
  }
}

/** The helpers' content: small files (the scripts) by their bytes, binaries by path, size and time. */
function contentKey(files: HelperFile[]): string {
  const hash = createHash('sha256');
  for (const file of files) {
    const stats = statSync(file.source);
    hash.update(`${file.target}\0`);
    hash.update(stats.size < 1024 * 1024 ? readFileSync(file.source) : `${realpathSync(file.source)}\0${stats.size}\0${stats.mtimeMs}`);
  }
  return hash.digest('hex').slice(0, 16);
}
