import { hostname } from 'node:os';
import type Docker from 'dockerode';

/** Label every Crucible container and volume carries; its value says which process owns it (ownerLabelValue). */
export const CONTAINER_OWNER_LABEL = 'dev.crucible.owner';

/** `pid@hostname` of this process: a container whose owner is gone can be removed by anyone. */
export function ownerLabelValue(pid: number = process.pid): string {
  return `${pid}@${hostname()}`;
}

/** What one sweep removed. */
export interface SweepCount {
  containers: number;
  volumes: number;
}

/**
 * Removes what Crucible processes that are gone (killed with -9, say) left on the engine: their
 * containers, then their volumes (an engine that shares no path holds each phase's directories as
 * volumes, docker-workspace.ts), which only their containers held. What another host sharing the
 * engine owns is left alone: its owner cannot be seen from here.
 */
export async function sweepOrphans(client: Docker): Promise<SweepCount> {
  const filters = { label: [CONTAINER_OWNER_LABEL] };
  let containers = 0;
  for (const info of await client.listContainers({ all: true, filters })) {
    if (ownerAlive(info.Labels)) continue;
    if (await removed(() => client.getContainer(info.Id).remove({ force: true }))) containers += 1;
  }
  let volumes = 0;
  for (const info of (await client.listVolumes({ filters })).Volumes ?? []) {
    if (ownerAlive(info.Labels)) continue;
    if (await removed(() => client.getVolume(info.Name).remove())) volumes += 1;
  }
  return { containers, volumes };
}

/** Whether the owner named in `labels` may still be running (always, for another host's). */
function ownerAlive(labels: Record<string, string> | null | undefined): boolean {
  const [pid, host] = (labels?.[CONTAINER_OWNER_LABEL] ?? '').split('@');
  return host !== hostname() || pidAlive(Number(pid));
}

/**
 * Runs one removal: false when the object went meanwhile (auto-remove, another sweep: the goal is
 * reached either way) or is still in use (a volume some other container mounts stays).
 */
async function removed(remove: () => Promise<unknown>): Promise<boolean> {
  try {
    await remove();
    return true;
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 404 || status === 409) return false;
    throw error;
  }
}

function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
