import { detectBwrap, sandboxTraits } from '../../infra/sandbox/index.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';

/** Whether this machine can run attempts now; when not, why and the fix. */
export type Health = { ok: true } | { ok: false; reason: string; fix: string };

/**
 * A worker's health check: its sandbox really starts (bwrap probes a namespace, Docker answers),
 * and Docker answers too when the job's task has an `environment:` (its image is built there).
 */
export async function checkHealth(sandbox: SandboxKind, needsDocker = false): Promise<Health> {
  const traits = sandboxTraits(sandbox);
  if (traits.needsBwrap) {
    const bwrap = await detectBwrap();
    if (!bwrap.ok) return { ok: false, reason: `the bubblewrap sandbox is unusable: ${bwrap.reason}`, fix: bwrap.fix };
  }
  if (traits.needsDockerEngine || needsDocker) {
    const { detectDocker } = await import('../../infra/docker/index.js');
    const docker = await detectDocker();
    if (!docker.ok) return { ok: false, reason: `Docker is unusable: ${docker.reason}`, fix: docker.fix };
  }
  return { ok: true };
}
