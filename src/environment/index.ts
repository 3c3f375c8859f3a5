/**
 * Task environments (issue 12): a task's `environment:` resolved to a local image before any
 * attempt — an image reference looked up or pulled, a Dockerfile built once per content hash of
 * its context — and the provenance each attempt records. The docker executor runs the image.
 */
import type { Task } from '../types/index.js';
import type { EnvironmentResolution, ResolveOptions } from './resolve.js';

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
