import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { message, PhaseContainer } from './docker-container.js';
import { runSupervised } from './docker-exec.js';
import { containerResources, DOCKER_LIMITS, supportsStorageLimit } from './docker-limits.js';
import { planBinds } from './docker-mounts.js';
import { helperRuntime, helperScript, KEEPALIVE_PATH, SUPERVISOR_PATH } from './docker-runtime.js';
import { buildChildEnv } from './env.js';
import { SandboxSetupError } from './errors.js';
import type { ExecRequest, ExecResult, Executor, NetworkMode, SandboxLayout } from './executor.js';
import { executorCapabilities } from './kinds.js';
import type { ExecutorOptions } from './executor-options.js';
import { engineSharesHostPaths } from './docker-workspace.js';
import { stagedContainers, type Engine } from './docker-staged.js';
import { assertRunnable } from './request-checks.js';
import { rlimitExceeded } from './rlimits.js';

export interface DockerExecutorOptions extends ExecutorOptions {
  /** The engine to use; default: the shared client of DOCKER_HOST / the local socket. */
  client?: Docker;
  /**
   * Whether the engine sees this machine's paths (then the layout is bound in); default: true for a
   * Unix socket, false for an engine reached over TCP or SSH (then it is archived in and out).
   */
  hostPaths?: boolean;
}

/** `none` and `gateway` both run without a network, but only `gateway`'s container has the bridge. */
type ContainerKey = NetworkMode;

/**
 * Runs a phase's commands in containers of the layout's image, or of the host's toolchain view
 * (an empty image with the same allowlist as bwrap bound in read-only). One container per
 * network mode, made at the first command that needs it and kept until `close()`: each command is
 * an exec into it, supervised by docker-exec-init.ts. The container runs as the invoking user,
 * with a read-only root, a private /tmp, no capabilities, no-new-privileges and the layout's
 * limits; it dies with Crucible (docker-keepalive.ts), and containers a dead Crucible left are
 * swept at the first command.
 */
export function createDockerExecutor(layout: SandboxLayout, options: DockerExecutorOptions = {}): Executor {
  // The engine client is imported at the first command: it costs hundreds of ms to load, which
  // every CLI start would pay otherwise.
  let engine: Promise<Engine> | undefined;
  const connect = (): Promise<Engine> => {
    engine ??= import('../docker/index.js').then((docker) => ({ docker, client: options.client ?? docker.dockerClient() }));
    return engine;
  };
  // An engine on another machine (DOCKER_HOST over TCP or SSH) sees none of this one's paths:
  // the layout goes in and the change comes out by archives (docker-workspace.ts).
  const sharesPaths = options.hostPaths ?? engineSharesHostPaths(options.client);
  const capabilities = executorCapabilities('docker', {
    limits: DOCKER_LIMITS,
    hostPaths: sharesPaths,
    // The model gateway listens on a socket of this machine: only a local engine can bridge it.
    ...(sharesPaths ? {} : { networkModes: ['none', 'host'] as const }),
  });
  const user = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const containers = new Map<ContainerKey, Promise<PhaseContainer>>();
  let filesDir: Promise<string> | undefined;
  let imageId: string | undefined;
  let closed = false;
  const resources = containerResources(layout.limits, layout.environment, false);
  const staged = stagedContainers(layout, user, resources, connect);

  const files = (): Promise<string> => {
    filesDir ??= (async () => {
      await sweep(await connect());
      const dir = await mkdtemp(join(tmpdir(), `${FILES_PREFIX}${process.pid}-`));
      await writeFile(join(dir, 'exec-init.mjs'), await helperScript('docker-exec-init'));
      await writeFile(join(dir, 'keepalive.mjs'), await helperScript('docker-keepalive'));
      return dir;
    })();
    return filesDir;
  };

  const startContainer = async (network: NetworkMode): Promise<PhaseContainer> => {
    const dir = await files();
    const { docker, client } = await connect();
    if (!sharesPaths) return startStaged(network, dir);
    const image = layout.environment?.imageId ?? (await docker.ensureHostImage(client));
    const hostView =
      layout.environment && layout.environment.hostView !== true
        ? undefined
        : { path: baseEnv().PATH ?? '', pyenvRoot: process.env.PYENV_ROOT, execPath: process.execPath, userHome: homedir(), sandboxHome: layout.home };
    const binds = await planBinds({ layout, network, hostView, filesDir: await mkdtemp(join(dir, `${network}-`)), user });
    const runtime = helperRuntime();
    const scripts = [
      { source: join(dir, 'exec-init.mjs'), target: SUPERVISOR_PATH, readOnly: true },
      { source: join(dir, 'keepalive.mjs'), target: KEEPALIVE_PATH, readOnly: true },
    ];
    const storage = layout.environment?.storageBytes !== undefined ? await storageSupported(client) : false;
    const container = await PhaseContainer.start(client, {
      image,
      platform: layout.environment?.platform,
      network,
      binds: [...binds, ...scripts],
      user: `${user.uid}:${user.gid}`,
      resources: storage ? containerResources(layout.limits, layout.environment, true) : resources,
      runtime,
      gateway: network === 'gateway' ? layout.gateway : undefined,
      labels: { [docker.CONTAINER_OWNER_LABEL]: docker.ownerLabelValue() },
      ...(layout.environment?.writableRoot === true ? { writableRoot: true } : {}),
    });
    imageId ??= container.imageId;
    if (closed) {
      // close() ran while this one was starting: it must not outlive the executor.
      await container.remove();
      throw new Error('docker executor: closed');
    }
    return container;
  };

  const startStaged = async (network: NetworkMode, dir: string): Promise<PhaseContainer> => {
    const container = await staged.start(network, dir);
    imageId ??= container.imageId;
    if (closed) {
      await removeContainer(container);
      throw new Error('docker executor: closed');
    }
    return container;
  };

  const removeContainer = (container: PhaseContainer): Promise<void> => (sharesPaths ? container.remove() : staged.remove(container));

  const containerFor = (network: NetworkMode): Promise<PhaseContainer> => {
    let container = containers.get(network);
    if (!container) {
      container = startContainer(network);
      containers.set(network, container);
      // A failed start is not cached: the next command tries again.
      container.catch(() => containers.get(network) === container && containers.delete(network));
    }
    return container;
  };

  const drop = async (network: NetworkMode, container: PhaseContainer): Promise<void> => {
    if ((await containers.get(network)?.catch(() => undefined)) === container) containers.delete(network);
    await removeContainer(container);
  };

  /** The child's environment: the image's own variables for a task image, then the usual base. */
  let imageEnv: Promise<Record<string, string>> | undefined;
  const childEnv = async (request: ExecRequest): Promise<Record<string, string>> => {
    if (!layout.environment && sharesPaths) return buildChildEnv({ hostEnv: process.env, home: layout.home, tmpdir: '/tmp', requestEnv: request.env });
    imageEnv ??= connect().then(async ({ client }) => readImageEnv(client, sharesPaths ? (layout.environment?.imageId ?? '') : await staged.image()));
    const fromImage = await imageEnv;
    // The host's PATH only where the host's toolchain is bound in.
    const hostEnv = layout.environment?.hostView === true && sharesPaths ? process.env : { PATH: fromImage.PATH };
    const base = buildChildEnv({ hostEnv, home: layout.home, tmpdir: '/tmp', requestEnv: request.env });
    // A task image's own PYTHONPATH stays, after the harness's (verification's sitecustomize).
    const env = { ...fromImage, ...base };
    if (base.PYTHONPATH && fromImage.PYTHONPATH) env.PYTHONPATH = `${base.PYTHONPATH}:${fromImage.PYTHONPATH}`;
    return env;
  };

  return {
    kind: 'docker',
    capabilities,
    containerImageId: () => imageId,
    async close(): Promise<void> {
      closed = true;
      const all = [...containers.values()];
      containers.clear();
      await Promise.all(all.map((pending) => pending.then(removeContainer).catch(() => undefined)));
      const dir = await filesDir?.catch(() => undefined);
      filesDir = undefined;
      if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    },
    async exec(request: ExecRequest): Promise<ExecResult> {
      if (closed) throw new Error('docker executor: exec after close()');
      await assertRunnable(request);
      const env = await childEnv(request);
      for (let attempt = 0; ; attempt++) {
        const container = await containerFor(request.network);
        let result;
        try {
          if (!sharesPaths) await staged.sendChanges(container);
          result = await runSupervised({
            container,
            node: helperRuntime().node,
            user: `${user.uid}:${user.gid}`,
            argv: request.argv,
            env,
            cwd: request.cwd,
            stdin: request.stdin,
            timeoutMs: request.timeoutMs,
            signal: request.signal,
            maxOutputBytes: request.maxOutputBytes,
            killGraceMs: options.killGraceMs,
            cpuSeconds: layout.limits?.cpuSeconds,
          });
        } catch (error) {
          // The container is gone (a command killed its keep-alive, or it was removed): start anew once.
          if (attempt === 0 && isGone(error)) {
            await drop(request.network, container);
            continue;
          }
          throw error;
        }
        const { lost, ...rest } = result;
        // Archive out before anything else: even a killed command's writes are its change.
        if (!sharesPaths) await staged.receive(container);
        if (lost) await drop(request.network, container);
        const fileSize =
          layout.limits?.fileSizeBytes !== undefined && !rest.limitExceeded ? rlimitExceeded(rest, { fileSizeBytes: layout.limits.fileSizeBytes }) : undefined;
        return fileSize ? { ...rest, limitExceeded: fileSize } : rest;
      }
    },
  };

  function baseEnv(): Record<string, string> {
    return buildChildEnv({ hostEnv: process.env, home: layout.home, tmpdir: '/tmp' });
  }
}

const FILES_PREFIX = 'crucible-docker-';

function isGone(error: unknown): boolean {
  const status = (error as { statusCode?: number }).statusCode;
  return status === 404 || status === 409;
}

async function readImageEnv(client: Docker, image: string): Promise<Record<string, string>> {
  let info: Docker.ImageInspectInfo;
  try {
    info = await client.getImage(image).inspect();
  } catch (error) {
    // Images are resolved (and built) before the executor runs; a missing one is the harness's problem.
    throw new SandboxSetupError(`docker cannot run image ${image}: ${message(error)}`);
  }
  const env: Record<string, string> = {};
  for (const entry of info.Config?.Env ?? []) {
    const at = entry.indexOf('=');
    if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return env;
}

let storageProbe: Promise<boolean> | undefined;

async function storageSupported(client: Docker): Promise<boolean> {
  storageProbe ??= client
    .info()
    .then((info: { Driver?: string; DriverStatus?: string[][] }) => supportsStorageLimit(info.Driver, info.DriverStatus))
    .catch(() => false);
  return storageProbe;
}

let swept: Promise<void> | undefined;

/**
 * Once per process: removes the containers, volumes and files directories of Crucible processes
 * that are gone. The keep-alive already takes a dead Crucible's containers down (and a stager's
 * volumes go with its executor's close()); this is the backup.
 */
function sweep({ docker, client }: Engine): Promise<void> {
  swept ??= (async () => {
    await docker.sweepOrphans(client).catch(() => undefined);
    const names = await readdir(tmpdir()).catch(() => [] as string[]);
    for (const name of names) {
      const owner = new RegExp(`^${FILES_PREFIX}(\\d+)-`).exec(name)?.[1];
      if (owner === undefined || owner === String(process.pid) || existsSync(`/proc/${owner}`)) continue;
      await rm(join(tmpdir(), name), { recursive: true, force: true }).catch(() => undefined);
    }
  })();
  return swept;
}
