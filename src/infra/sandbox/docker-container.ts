import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { DockerBind } from './docker-mounts.js';
import type { ContainerResources } from './docker-limits.js';
import { HELPER_ENV, KEEPALIVE_PATH } from './docker-runtime.js';
import type { HelperRuntime } from './docker-runtime.js';
import { SandboxSetupError } from './errors.js';
import type { NetworkMode } from './executor.js';

export interface ContainerSpec {
  image: string;
  platform?: string;
  network: NetworkMode;
  binds: DockerBind[];
  /** Engine volumes (an engine that does not share this machine's paths: docker-workspace.ts). */
  volumes?: { name: string; target: string; readOnly: boolean }[];
  /** `uid:gid` of the invoking user: the container's processes run as it. */
  user: string;
  resources: ContainerResources;
  runtime: HelperRuntime;
  gateway?: { socketPath: string; port: number };
  /** The owner label (CONTAINER_OWNER_LABEL of src/infra/docker) that the sweep reads. */
  labels: Record<string, string>;
  /** The image's own filesystem writable (a layer removed with the container); default read-only. */
  writableRoot?: boolean;
}

const READY_TIMEOUT_MS = 30_000;

/**
 * One running container of a phase: created, attached (its stdin is the keep-alive's lifeline,
 * see docker-keepalive.ts) and started, and ready once the keep-alive says so (for `gateway`, once
 * the bridge listens). It removes itself when Crucible dies; `remove()` is the orderly way.
 */
export class PhaseContainer {
  private removed: Promise<void> | undefined;

  private constructor(
    readonly container: Docker.Container,
    /** The image id the engine reports for the container. */
    readonly imageId: string,
    private readonly lifeline: Duplex,
  ) {}

  static async start(client: Docker, spec: ContainerSpec): Promise<PhaseContainer> {
    const keepalive = [...spec.runtime.node, KEEPALIVE_PATH, ...(spec.gateway ? [JSON.stringify(spec.gateway)] : [])];
    const create = {
      Image: spec.image,
      ...(spec.platform ? { platform: spec.platform } : {}),
      // The image's own entrypoint and command are not ours to run: the commands are exec'd.
      Entrypoint: spec.runtime.init ? [spec.runtime.init, '--', ...keepalive] : keepalive,
      Cmd: [],
      User: spec.user,
      WorkingDir: '/',
      Env: HELPER_ENV,
      Labels: spec.labels,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      OpenStdin: true,
      StdinOnce: true,
      Tty: false,
      HostConfig: {
        AutoRemove: true,
        ReadonlyRootfs: spec.writableRoot !== true,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        NetworkMode: spec.network === 'host' ? 'host' : 'none',
        // exec: builds and test runs put binaries in /tmp; it is the container's own, not the host's.
        Tmpfs: { '/tmp': 'rw,exec,nosuid,nodev,mode=1777' },
        Mounts: [
          ...spec.runtime.binds.map((bind) => ({ Type: 'bind' as const, Source: bind.source, Target: bind.target, ReadOnly: true })),
          ...spec.binds.map((bind) => ({ Type: 'bind' as const, Source: bind.source, Target: bind.target, ReadOnly: bind.readOnly })),
          ...(spec.volumes ?? []).map((volume) => ({ Type: 'volume' as const, Source: volume.name, Target: volume.target, ReadOnly: volume.readOnly })),
        ],
        ...spec.resources,
      },
    };
    let container: Docker.Container;
    try {
      container = await client.createContainer(create);
    } catch (error) {
      throw new SandboxSetupError(`docker could not create the container of image ${spec.image}: ${message(error)}`);
    }
    let lifeline: Duplex | undefined;
    try {
      lifeline = (await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as Duplex;
      const ready = waitReady(lifeline);
      await container.start();
      await ready;
      const info = await container.inspect();
      // The lifeline must not keep Crucible's event loop alive: if Crucible exits, the container goes too.
      unref(lifeline);
      return new PhaseContainer(container, info.Image, lifeline);
    } catch (error) {
      lifeline?.destroy();
      await container.remove({ force: true }).catch(() => undefined);
      if (error instanceof SandboxSetupError) throw error;
      throw new SandboxSetupError(`docker could not start the container of image ${spec.image}: ${message(error)}`);
    }
  }

  get id(): string {
    return this.container.id;
  }

  /** Removes the container with everything in it; never throws, safe to call again. */
  remove(): Promise<void> {
    this.removed ??= (async () => {
      await this.container.remove({ force: true }).catch(() => undefined);
      this.lifeline.destroy();
    })();
    return this.removed;
  }
}

/** Resolves once the keep-alive prints `ready`; rejects with what it printed if it dies first. */
function waitReady(stream: Duplex): Promise<void> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    let buffered: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => fail(`the container's helper did not start within ${READY_TIMEOUT_MS / 1000} s`), READY_TIMEOUT_MS);
    const done = (): void => {
      clearTimeout(timer);
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('close', onEnd);
    };
    const fail = (reason: string): void => {
      done();
      reject(new SandboxSetupError(reason));
    };
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      // Docker's stream framing: [kind, 0, 0, 0, size (4 bytes, big-endian)] then the payload.
      while (buffered.length >= 8) {
        const size = buffered.readUInt32BE(4);
        if (buffered.length < 8 + size) break;
        const text = buffered.subarray(8, 8 + size).toString('utf8');
        if (buffered[0] === 2) stderr += text;
        else stdout += text;
        buffered = buffered.subarray(8 + size);
      }
      if (stdout.includes('ready\n')) {
        done();
        // Later output of the keep-alive is of no interest, but must be read so it never blocks.
        stream.resume();
        resolve();
      }
    };
    const onEnd = (): void =>
      fail(
        `the container's helper exited before it was ready: ${firstLine(stderr) || firstLine(stdout) || 'no output'} ` +
          '(it runs the host node through its own loader; see docs/sandbox.md, "What a docker container needs")',
      );
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('close', onEnd);
    stream.on('error', () => undefined);
  });
}

function unref(stream: Duplex): void {
  const socket = stream as Duplex & { unref?: () => void };
  socket.unref?.();
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}

export function message(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // dockerode prefixes the engine's message with the HTTP status; the engine's words are enough.
  return text.replace(/^\(HTTP code \d+\) [a-z ]+ - /i, '').trim();
}
