import type { ContainerEnvironment, ExecLimitName, ExecLimits } from './executor.js';

/**
 * The layout's limits as a container's resources. Docker applies them to the whole container: the
 * phase's commands together plus Crucible's helpers in it (docker-init, the keep-alive, one
 * supervisor per running command, and runc's own process while it starts an exec), so pids and
 * memory get a fixed allowance for those on top. CPU time has no engine setting: the supervisor
 * polls the container's usage (docker-exec-init.ts). File size is RLIMIT_FSIZE, which every exec
 * inherits from the container.
 */
export const PIDS_ALLOWANCE = 24;
export const MEMORY_ALLOWANCE_BYTES = 32 * 1024 * 1024;

/** The part of HostConfig that carries the limits. */
export interface ContainerResources {
  PidsLimit?: number;
  Memory?: number;
  MemorySwap?: number;
  NanoCpus?: number;
  Ulimits?: { Name: string; Soft: number; Hard: number }[];
  StorageOpt?: Record<string, string>;
}

export function containerResources(limits: ExecLimits | undefined, environment: ContainerEnvironment | undefined, storage: boolean): ContainerResources {
  const resources: ContainerResources = {};
  for (const [name, value] of Object.entries(limits ?? {})) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value <= 0)) {
      throw new Error(`sandbox layout: limits.${name} must be a positive whole number, got ${value}`);
    }
  }
  if (limits?.pids !== undefined) resources.PidsLimit = limits.pids + PIDS_ALLOWANCE;
  if (limits?.memoryBytes !== undefined) {
    // Equal to Memory: no swap, or the command would outgrow its limit by swapping.
    resources.Memory = limits.memoryBytes + MEMORY_ALLOWANCE_BYTES;
    resources.MemorySwap = resources.Memory;
  }
  if (limits?.fileSizeBytes !== undefined) {
    resources.Ulimits = [{ Name: 'fsize', Soft: limits.fileSizeBytes, Hard: limits.fileSizeBytes }];
  }
  if (environment?.cpus !== undefined) {
    if (!(environment.cpus > 0)) throw new Error(`task environment: cpus must be positive, got ${environment.cpus}`);
    resources.NanoCpus = Math.round(environment.cpus * 1e9);
  }
  if (environment?.storageBytes !== undefined && storage) resources.StorageOpt = { size: String(environment.storageBytes) };
  return resources;
}

/** Every ExecLimit is enforced for the whole command (see above for how). */
export const DOCKER_LIMITS: readonly ExecLimitName[] = Object.freeze(['pids', 'memory', 'cpu_time', 'file_size']);

/**
 * Whether the engine can cap a container's writable layer: overlay2 only on xfs mounted with
 * pquota, devicemapper, btrfs and zfs. `docker info` names the driver and its backing filesystem.
 */
export function supportsStorageLimit(driver: string | undefined, driverStatus: readonly (readonly string[])[] | undefined): boolean {
  if (driver === 'devicemapper' || driver === 'btrfs' || driver === 'zfs') return true;
  if (driver !== 'overlay2') return false;
  const backing = driverStatus?.find(([key]) => key === 'Backing Filesystem')?.[1];
  return backing === 'xfs';
}
