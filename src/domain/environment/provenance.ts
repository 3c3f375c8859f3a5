import type { ContainerEnvironment } from '../../infra/sandbox/index.js';
import type { EnvironmentProvenance, Task } from '../../core/types/index.js';
import type { ResolvedEnvironment } from './resolve.js';
import { workdirOf } from './workdir.js';

/**
 * The provenance an attempt records: where its commands ran and under which container limits.
 * `containerImageId` is what the agent phase's containers reported, added once they ran.
 */
export function provenanceOf(resolved: ResolvedEnvironment, task: Task, containerImageId?: string): EnvironmentProvenance {
  const env = task.environment;
  const r = task.limits.resources;
  return {
    source: resolved.source,
    reference: resolved.reference,
    imageId: resolved.imageId,
    ...(containerImageId !== undefined ? { containerImageId } : {}),
    repoDigest: resolved.repoDigest,
    immutable: resolved.immutable,
    ...(resolved.contextHash !== undefined ? { contextHash: resolved.contextHash } : {}),
    platform: resolved.platform,
    limits: {
      ...(env?.cpus !== undefined ? { cpus: env.cpus } : {}),
      memoryBytes: r.memoryBytes,
      pids: r.pids,
      ...(env?.storageBytes !== undefined ? { storageBytes: env.storageBytes } : {}),
    },
    engineVersion: resolved.engineVersion,
  };
}

/**
 * What the docker executor's layout carries: the image to run and the limits only a container
 * applies. The host view has none (the executor's default is that view).
 */
export function containerEnvironmentOf(resolved: ResolvedEnvironment | undefined, task: Task): ContainerEnvironment | undefined {
  if (resolved === undefined || resolved.source === 'host') return undefined;
  const env = task.environment;
  const workdir = workdirOf(env, resolved);
  return {
    imageId: resolved.imageId,
    ...(workdir !== undefined ? { workdir } : {}),
    ...(resolved.hostView ? { hostView: true } : {}),
    ...(env?.platform !== undefined ? { platform: env.platform } : {}),
    ...(env?.cpus !== undefined ? { cpus: env.cpus } : {}),
    ...(env?.storageBytes !== undefined ? { storageBytes: env.storageBytes } : {}),
  };
}
