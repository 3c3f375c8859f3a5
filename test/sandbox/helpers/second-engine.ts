import { spawn, spawnSync } from 'node:child_process';
import { existsSync, openSync, readFileSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import Docker from 'dockerode';
import { allowlistMounts } from '../../../src/infra/sandbox/bwrap-allowlist.js';

/**
 * A Docker engine of the test's own, reached over TCP (as one on another machine would be): its
 * own data root, exec root (so its own containerd) and pid file, no bridge, no iptables. It shares
 * nothing with the main engine but the kernel.
 */
export interface SecondEngine {
  /** `tcp://127.0.0.1:<port>`, for DOCKER_HOST. */
  host: string;
  port: number;
  client: Docker;
  stop(): Promise<void>;
}

export async function startSecondEngine(): Promise<SecondEngine> {
  const root = await mkdtemp('/var/tmp/crucible-engine-');
  const port = await freePort();
  const log = openSync(join(root, 'dockerd.log'), 'a');
  const daemon = spawn(
    'dockerd',
    [
      ...['-H', `tcp://127.0.0.1:${port}`],
      ...['--data-root', join(root, 'data'), '--exec-root', join(root, 'exec'), '--pidfile', join(root, 'dockerd.pid')],
      ...['--iptables=false', '--ip6tables=false', '--bridge=none'],
    ],
    { stdio: ['ignore', log, log] },
  );
  let exited = false;
  const ended = new Promise<void>((resolve) => daemon.once('exit', () => ((exited = true), resolve())));
  const client = new Docker({ host: '127.0.0.1', port, protocol: 'http' });
  const stop = async (): Promise<void> => {
    if (!exited) daemon.kill('SIGTERM');
    await ended;
    // dockerd leaves its network namespace mounted under the exec root.
    for (const mount of mountsUnder(root)) spawnSync('umount', ['-l', mount]);
    await rm(root, { recursive: true, force: true }).catch(() => undefined);
  };
  // Ready once it answers; a daemon that exits first has said why in its log.
  for (;;) {
    if (exited) {
      const why = readFileSync(join(root, 'dockerd.log'), 'utf8').trim().split('\n').slice(-3).join(' | ');
      await stop();
      throw new Error(`the second dockerd exited before it answered: ${why}`);
    }
    if (
      await client.ping().then(
        () => true,
        () => false,
      )
    )
      break;
    await sleep(200);
  }
  return { host: `tcp://127.0.0.1:${port}`, port, client, stop };
}

/** Copies an image from one engine to another: docker save | docker load. */
export async function copyImage(from: Docker, to: Docker, ref: string): Promise<void> {
  const saved = (await from.getImage(ref).get()) as Readable;
  const loading = (await to.loadImage(saved)) as Readable;
  await new Promise<void>((resolve, reject) => to.modem.followProgress(loading, (error: Error | null) => (error ? reject(error) : resolve())));
}

/**
 * Builds, on `engine`, HOST_IMAGE as an engine on another machine needs it: a toolchain of its
 * own. Here: the busybox image with this machine's node (and npm, with its global config), python3
 * with pytest, and git copied in with the libraries they link, which is what the bundled examples
 * run; and the /etc that a local engine's containers see (hostViewEtc), so that TLS roots and
 * package-registry settings are the same on both engines.
 */
export async function buildToolchainImage(engine: Docker, base: string, tag: string): Promise<void> {
  const context = await mkdtemp('/var/tmp/crucible-toolchain-');
  try {
    const rootfs = join(context, 'root');
    const python = '/usr/lib/python3.11';
    const binaries = ['/usr/bin/node', '/usr/bin/python3.11', '/usr/bin/git'];
    const dynload = (await readdir(join(python, 'lib-dynload'))).map((name) => join(python, 'lib-dynload', name));
    const libraries = new Set<string>();
    for (const binary of [...binaries, ...dynload]) for (const lib of linked(binary)) libraries.add(lib);
    // npm reads its global config (here the registry's CA file) from <node's prefix>/etc/npmrc.
    const npmGlobalConfig = join(dirname(dirname(binaries[0] ?? '')), 'etc', 'npmrc');
    const trees = [python, '/usr/lib/python3/dist-packages', '/usr/lib/node_modules/npm', ...[npmGlobalConfig].filter((path) => existsSync(path))];
    for (const path of [...binaries, ...libraries, ...trees, ...hostViewEtc()]) {
      await mkdir(join(rootfs, dirname(path)), { recursive: true });
      await cp(path, join(rootfs, path), { recursive: true, dereference: true });
    }
    await symlink('python3.11', join(rootfs, 'usr/bin/python3'));
    await writeFile(join(rootfs, 'usr/bin/npm'), '#!/bin/sh\nexec /usr/bin/node /usr/lib/node_modules/npm/bin/npm-cli.js "$@"\n');
    await chmod(join(rootfs, 'usr/bin/npm'), 0o755);
    // Every busybox applet by name (the image links only a few), /usr/bin/env for shebangs.
    await mkdir(join(rootfs, 'bin'), { recursive: true });
    for (const applet of APPLETS) await symlink('/bin/busybox', join(rootfs, 'bin', applet));
    await symlink('/bin/busybox', join(rootfs, 'usr/bin/env'));
    await writeFile(join(context, 'Dockerfile'), `FROM ${base}\nCOPY root/ /\nENV PATH=/usr/local/bin:/usr/bin:/bin\n`);
    const tar = spawn('tar', ['-c', '-C', context, '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const progress = (await engine.buildImage(tar.stdout, { t: tag, networkmode: 'none', rm: true })) as Readable;
    const output = await new Promise<Array<{ error?: string }>>((resolve, reject) =>
      engine.modem.followProgress(progress, (error: Error | null, events: Array<{ error?: string }>) => (error ? reject(error) : resolve(events))),
    );
    const failed = output.find((event) => event.error !== undefined);
    if (failed) throw new Error(`building ${tag} failed: ${failed.error}`);
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}

/**
 * What of /etc a local engine's containers are shown (the host view: bwrap-allowlist.ts, which
 * docker-mounts.ts binds), with the host network's registry settings: TLS roots, npmrc, pip.conf.
 * Not the engine's own files (hosts, resolv.conf), nor the alternatives, whose links point into
 * the /usr this image holds only in part.
 */
function hostViewEtc(): string[] {
  const view = { path: '/usr/bin:/bin', execPath: '/usr/bin/node', userHome: homedir(), sandboxHome: '/nonexistent' };
  const skipped = new Set(['/etc/hosts', '/etc/resolv.conf', '/etc/hostname', '/etc/alternatives']);
  return allowlistMounts('host', view)
    .filter((op) => (op.kind === 'read-only' || op.kind === 'symlink') && op.path.startsWith('/etc/') && !skipped.has(op.path))
    .map((op) => op.path);
}

/** The shared libraries `binary` links (and its loader), by ldd. */
function linked(binary: string): string[] {
  const run = spawnSync('ldd', [binary], { encoding: 'utf8' });
  if (run.status !== 0) return [];
  return [...run.stdout.matchAll(/(\/\S+) \(0x/g)].map((match) => match[1] ?? '').filter((path) => path !== '');
}

const APPLETS = [
  'awk',
  'basename',
  'cat',
  'chmod',
  'cp',
  'cut',
  'date',
  'diff',
  'dirname',
  'echo',
  'env',
  'expr',
  'false',
  'find',
  'grep',
  'head',
  'id',
  'kill',
  'ln',
  'ls',
  'mkdir',
  'mktemp',
  'mv',
  'printf',
  'ps',
  'pwd',
  'readlink',
  'realpath',
  'rm',
  'rmdir',
  'sed',
  'setsid',
  'sleep',
  'sort',
  'tail',
  'tar',
  'tee',
  'test',
  'touch',
  'tr',
  'true',
  'uname',
  'uniq',
  'wc',
  'which',
  'xargs',
];

function mountsUnder(root: string): string[] {
  return readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((path) => path.startsWith(`${root}/`))
    .reverse();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
