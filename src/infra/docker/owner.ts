import { hostname } from 'node:os';
import type Docker from 'dockerode';

/** Label every Crucible container carries; its value says which process owns it (ownerLabelValue). */
export const CONTAINER_OWNER_LABEL = 'dev.crucible.owner';

/** `pid@hostname` of this process: a container whose owner is gone can be removed by anyone. */
export function ownerLabelValue(pid: number = process.pid): string {
  return `${pid}@${hostname()}`;
}

/**
 * Removes Crucible containers whose owning process is gone (killed with -9, say); returns how
 * many. Containers of another host sharing the engine are left alone: their owner cannot be seen.
 */
export async function sweepContainers(client: Docker): Promise<number> {
  const listed = await client.listContainers({ all: true, filters: { label: [CONTAINER_OWNER_LABEL] } });
  let removed = 0;
  for (const info of listed) {
    const owner = info.Labels[CONTAINER_OWNER_LABEL] ?? '';
    const [pid, host] = owner.split('@');
    if (host !== hostname() || pidAlive(Number(pid))) continue;
    try {
      await client.getContainer(info.Id).remove({ force: true });
      removed += 1;
    } catch (error) {
      // Removed meanwhile (auto-remove, another sweep): the goal is reached either way.
      if ((error as { statusCode?: number }).statusCode !== 404 && (error as { statusCode?: number }).statusCode !== 409) throw error;
    }
  }
  return removed;
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
