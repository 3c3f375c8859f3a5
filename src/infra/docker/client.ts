import Docker from 'dockerode';

let shared: Docker | undefined;

/**
 * A client for the engine at DOCKER_HOST, else the default local socket (docker-modem reads
 * DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH itself). One per process: it holds no
 * connection until used.
 */
export function dockerClient(): Docker {
  shared ??= new Docker();
  return shared;
}
