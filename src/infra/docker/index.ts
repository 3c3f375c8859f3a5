/**
 * The docker module's public entry: the connection to the local Docker Engine and what every user
 * of it shares (detection, the host-view base image, the labels on Crucible's containers, the
 * sweep of the containers and volumes a dead process left).
 */
export type { DockerDetection } from './detect.js';
export { detectDocker } from './detect.js';
export { dockerClient } from './client.js';
export { HOST_IMAGE, ensureHostImage, toolchainHostImage } from './host-image.js';
export type { SweepCount } from './owner.js';
export { CONTAINER_OWNER_LABEL, ownerLabelValue, sweepOrphans } from './owner.js';
