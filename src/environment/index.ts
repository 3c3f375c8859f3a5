/**
 * Task environments (issue 12): a task's `environment:` resolved to a local image before any
 * attempt — an image reference looked up or pulled, a Dockerfile built once per content hash of
 * its context — and the provenance each attempt records. The docker executor runs the image.
 */
export type { EnvironmentFailure, EnvironmentResolution, ResolvedEnvironment, ResolveOptions } from './resolve.js';
export { resolveEnvironments } from './resolve.js';
export { containerEnvironmentOf, provenanceOf } from './provenance.js';
export { hashContext, type BuildContext, type HashedContext } from './context-hash.js';
export { finalBase } from './build.js';
export { CONTEXT_HASH_LABEL, ENV_REPOSITORY, HOST_VIEW_LABEL, envTag } from './labels.js';
