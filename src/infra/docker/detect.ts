import type Docker from 'dockerode';
import { dockerClient } from './client.js';

export type DockerDetection =
  { ok: true; /** Engine version, e.g. `20.10.24`. */ version: string; apiVersion: string } | { ok: false; reason: string; fix: string };

const PROBE_TIMEOUT_MS = 10_000;
const INSTALL_FIX =
  'install Docker and start its engine (Debian/Ubuntu: sudo apt-get install -y docker.io && sudo systemctl start docker), or set DOCKER_HOST to a running engine';

/** Whether a Docker engine answers here, with the fix when it does not. Never throws. */
export async function detectDocker(client: Docker = dockerClient()): Promise<DockerDetection> {
  const where = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error('no answer'), { code: 'ETIMEDOUT' })), PROBE_TIMEOUT_MS);
    });
    const version = await Promise.race([client.version(), timeout]);
    return { ok: true, version: version.Version, apiVersion: version.ApiVersion };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EACCES') {
      return {
        ok: false,
        reason: `permission denied on the Docker socket (${where})`,
        fix: 'add your user to the docker group (sudo usermod -aG docker $USER, then log in again)',
      };
    }
    if (code === 'ENOENT' || code === 'ECONNREFUSED') {
      return { ok: false, reason: `no Docker engine answers at ${where}`, fix: INSTALL_FIX };
    }
    if (code === 'ETIMEDOUT')
      return {
        ok: false,
        reason: `the Docker engine at ${where} did not answer within ${PROBE_TIMEOUT_MS / 1000} s`,
        fix: 'check that dockerd is healthy (docker info)',
      };
    return {
      ok: false,
      reason: `the Docker engine at ${where} failed: ${error instanceof Error ? error.message : String(error)}`,
      fix: 'check that dockerd is healthy (docker info)',
    };
  } finally {
    clearTimeout(timer);
  }
}
