/**
 * Labels and names Crucible gives the images it builds. Kept here, not in src/infra/docker: they are the
 * environment module's contract with the docker executor, which reads HOST_VIEW_LABEL.
 */

/**
 * Set to `1` on every image whose root is the host view (HOST_IMAGE, empty): the docker executor
 * binds the host's toolchain into containers of such an image, as it does for HOST_IMAGE itself.
 * Docker copies a base image's labels into images built FROM it, and the environment builder sets
 * it on a Dockerfile whose final stage is FROM HOST_IMAGE, so either way it reaches the executor.
 */
export const HOST_VIEW_LABEL = 'dev.crucible.host-view';

/** The full SHA-256 of a built image's context (ENV_TAG_PREFIX tags only its first 12 digits). */
export const CONTEXT_HASH_LABEL = 'dev.crucible.context-hash';

/** Repository of the images built from task Dockerfiles: `crucible-env:<hash12>`. */
export const ENV_REPOSITORY = 'crucible-env';

/** The tag of the image built from a context whose hash is `hash`. */
export function envTag(hash: string): string {
  return `${ENV_REPOSITORY}:${hash.slice(0, 12)}`;
}
