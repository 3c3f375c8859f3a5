/**
 * Task environments (issue 12): a task's `environment:` resolved to a local image before any
 * attempt — an image reference looked up or pulled, a Dockerfile built once per content hash of
 * its context — and the provenance each attempt records. The docker executor runs the image.
 */
import type { Task } from '../../core/types/index.js';
import type { EnvironmentResolution, ResolvedEnvironment, ResolveOptions } from './resolve.js';

export type { EnvironmentFailure, EnvironmentResolution, ResolvedEnvironment, ResolveOptions } from './resolve.js';

/**
 * See resolve.ts. Loaded on first use: the engine client (dockerode) costs hundreds of ms to import,
 * and only docker runs need it.
 */
export async function resolveEnvironments(tasks: readonly Task[], options: ResolveOptions = {}): Promise<Map<string, EnvironmentResolution>> {
  const { resolveEnvironments: resolve } = await import('./resolve.js');
  return resolve(tasks, options);
}
export { containerEnvironmentOf, provenanceOf } from './provenance.js';
export { hashContext, type BuildContext, type HashedContext } from './context-hash.js';
export { finalBase } from './dockerfile.js';
export { CONTEXT_HASH_LABEL, ENV_REPOSITORY, HOST_VIEW_LABEL, envTag } from './labels.js';
export { workdirOf } from './workdir.js';

/**
 * A container-native task's files: the image's workdir copied into `workspace` before setup (see
 * workdir.ts); nothing for any other task. Loads the engine client only when there is one to copy.
 */
export async function copyTaskWorkdir(task: Task, resolved: ResolvedEnvironment | undefined, workspace: string): Promise<void> {
  if (resolved === undefined || resolved.source === 'host') return;
  const { workdirOf: target, copyImageWorkdir } = await import('./workdir.js');
  const workdir = target(task.environment, resolved);
  if (workdir === undefined) return;
  const docker = await import('../../infra/docker/index.js');
  await copyImageWorkdir(docker.dockerClient(), resolved.imageId, workdir, workspace, { [docker.CONTAINER_OWNER_LABEL]: docker.ownerLabelValue() });
}
