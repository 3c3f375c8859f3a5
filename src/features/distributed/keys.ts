/**
 * Every name Crucible uses in Redis, in one place. BullMQ queues live under the `crucible` prefix,
 * one queue per run (`run.<runId>`), so concurrent runs never see each other's jobs.
 */
export const PREFIX = 'crucible';

/** The set of run ids whose queues workers should serve; a coordinator adds its run, removes it when done. */
export const RUNS_KEY = `${PREFIX}:runs`;

export function queueName(runId: string): string {
  return `run.${runId}`;
}

/** A content-addressed blob: its key is the SHA-256 of its bytes. */
export function blobKey(sha256: string): string {
  return `${PREFIX}:blob:${sha256}`;
}

/** attemptId → 1 for every job result this run's coordinator has taken into its run directory. */
export function takenKey(runId: string): string {
  return `${PREFIX}:taken:${runId}`;
}

/** How long blobs live (inputs are refreshed whenever a coordinator ships them again). */
export const BLOB_TTL_SECONDS = 7 * 24 * 3600;

/** The run's registration: the coordinator's Crucible version and job format, which a worker checks before serving it. */
export function runMetaKey(runId: string): string {
  return `${PREFIX}:run:${runId}`;
}

/** Set when a run completes, so workers retire it at once (a run merely missing from the set may be a Redis that lost its data). */
export function endedKey(runId: string): string {
  return `${PREFIX}:ended:${runId}`;
}

/** A run's pool of `--max-cost-total` / `--max-tokens-total` (redis-pool.ts): what was billed, and the holds of requests in flight with their leases. */
export function poolKeys(runId: string): { spent: string; holds: string; leases: string } {
  return { spent: `${PREFIX}:pool:${runId}:spent`, holds: `${PREFIX}:pool:${runId}:holds`, leases: `${PREFIX}:pool:${runId}:leases` };
}
