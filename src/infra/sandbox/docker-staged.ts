import { join } from 'node:path';
import type Docker from 'dockerode';
import { PhaseContainer } from './docker-container.js';
import type { ContainerResources } from './docker-limits.js';
import { HELPER_DIR, helperRuntime, KEEPALIVE_PATH, SUPERVISOR_PATH } from './docker-runtime.js';
import { emptyInContainer, helperVolume, planVolumes, Stager } from './docker-workspace.js';
import { SandboxSetupError } from './errors.js';
import type { NetworkMode, SandboxLayout } from './executor.js';

/** The engine client, imported lazily by the executor. */
export interface Engine {
  docker: typeof import('../docker/index.js');
  client: Docker;
}

/**
 * Containers on an engine that shares no path with this machine (DOCKER_HOST over TCP or SSH):
 * each layout directory is a volume filled by an archive, and after each command the writable ones
 * come back out. Only the executor's container bookkeeping stays in docker.ts.
 */
export interface StagedContainers {
  start(network: NetworkMode, filesDir: string): Promise<PhaseContainer>;
  /** The image the containers run: the task's, else a toolchain image loaded on that engine. */
  image(): Promise<string>;
  /** Archive in what the host changed since the container last agreed with it. */
  sendChanges(container: PhaseContainer): Promise<void>;
  /** Archive out what the last command wrote. */
  receive(container: PhaseContainer): Promise<void>;
  remove(container: PhaseContainer): Promise<void>;
}

export function stagedContainers(
  layout: SandboxLayout,
  user: { uid: number; gid: number },
  resources: ContainerResources,
  connect: () => Promise<Engine>,
): StagedContainers {
  const stagers = new Map<PhaseContainer, Stager>();
  let stagedImage: Promise<string> | undefined;

  const image = (): Promise<string> => {
    stagedImage ??= (async () => {
      if (layout.environment) return layout.environment.imageId;
      const { docker, client } = await connect();
      const found = await docker.toolchainHostImage(client);
      if ('id' in found) return found.id;
      throw new SandboxSetupError(
        `${found.problem}, and an engine reached over ${process.env.DOCKER_HOST ?? 'the network'} cannot see this machine's toolchain ` +
          `(fix: load an image with the tasks' toolchain as ${docker.HOST_IMAGE} there, or give the tasks an environment: image; see docs/sandbox.md)`,
      );
    })();
    stagedImage.catch(() => (stagedImage = undefined));
    return stagedImage;
  };

  const start = async (network: NetworkMode, filesDir: string): Promise<PhaseContainer> => {
    if (network === 'gateway')
      throw new SandboxSetupError(
        "network 'gateway': the model gateway listens on this machine, which an engine reached over the network cannot bridge (fix: run agents that call a model on a local engine)",
      );
    const { docker, client } = await connect();
    const chosen = await image();
    const runtime = helperRuntime();
    const helpers = await helperVolume(client, chosen, [
      ...runtime.binds,
      { source: join(filesDir, 'exec-init.mjs'), target: SUPERVISOR_PATH },
      { source: join(filesDir, 'keepalive.mjs'), target: KEEPALIVE_PATH },
    ]);
    const labels = { [docker.CONTAINER_OWNER_LABEL]: docker.ownerLabelValue() };
    const volumes = await planVolumes(layout);
    const stager = await Stager.fill(client, chosen, volumes, labels);
    try {
      const container = await PhaseContainer.start(client, {
        image: chosen,
        platform: layout.environment?.platform,
        network,
        binds: [],
        volumes: [
          { name: helpers, target: HELPER_DIR, readOnly: true },
          ...volumes.flatMap((volume) => volume.targets.map((target) => ({ name: volume.name, target, readOnly: !volume.writable }))),
        ],
        user: `${user.uid}:${user.gid}`,
        resources,
        runtime: { ...runtime, binds: [] },
        labels,
        ...(layout.environment?.writableRoot === true ? { writableRoot: true } : {}),
      });
      stagers.set(container, stager);
      return container;
    } catch (error) {
      await stager.remove();
      throw error;
    }
  };

  return {
    start,
    image,
    async sendChanges(container) {
      const stager = stagers.get(container);
      const changed = stager ? await stager.changedOnHost() : [];
      if (!stager || changed.length === 0) return;
      await emptyInContainer(container.container, helperRuntime().node, `${user.uid}:${user.gid}`, changed);
      for (const volume of changed) await stager.resend(volume);
    },
    async receive(container) {
      await stagers.get(container)?.receive();
    },
    async remove(container) {
      await container.remove();
      await stagers.get(container)?.remove();
      stagers.delete(container);
    },
  };
}
