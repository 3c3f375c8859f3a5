/**
 * The docker module's public entry: the connection to the local Docker Engine and what every user
 * of it shares (detection, the host-view base image, the labels on Crucible's containers, the
 * sweep of containers a dead process left). Contract stub: implemented with issue 12.
 */
import type Docker from 'dockerode';

export type DockerDetection =
  { ok: true; /** Engine version, e.g. `20.10.24`. */ version: string; apiVersion: string } | { ok: false; reason: string; fix: string };

/** Label every Crucible container carries; its value is the creating process's pid@hostname. */
export const CONTAINER_OWNER_LABEL = 'dev.crucible.owner';

/**
 * Image that holds nothing: containers of it see the host's toolchain through read-only binds
 * (the same allowlist as bwrap). Created locally with an import, never pulled.
 */
export const HOST_IMAGE = 'crucible/host:1';

/** A client for the engine at DOCKER_HOST, else the default local socket. */
export function dockerClient(): Docker {
  throw new Error('not built yet');
}

/** Whether a Docker engine answers here, with the fix when it does not. */
export async function detectDocker(_client?: Docker): Promise<DockerDetection> {
  return { ok: false, reason: 'not built yet', fix: 'wait for issue 12' };
}

/** The id of HOST_IMAGE, importing it (an empty root filesystem) when missing. */
export async function ensureHostImage(_client: Docker): Promise<string> {
  throw new Error('not built yet');
}

/** Removes Crucible containers whose owning process is gone; returns how many. */
export async function sweepContainers(_client: Docker): Promise<number> {
  return 0;
}
