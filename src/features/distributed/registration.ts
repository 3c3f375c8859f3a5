import type { Redis } from 'ioredis';
import { version } from '../../core/version.js';
import { JOB_FORMAT } from './job.js';
import { endedKey, runMetaKey, RUNS_KEY } from './keys.js';

/** What a coordinator records about its run for the workers. */
export interface RunMeta {
  version: string;
  format: string;
}

export function ownMeta(): RunMeta {
  return { version: version(), format: String(JOB_FORMAT) };
}

/** Registers the run (again, after a Redis that lost its data): its id in the run set, its versions beside it. */
export async function registerRun(redis: Redis, runId: string): Promise<void> {
  const meta = ownMeta();
  await redis.multi().del(endedKey(runId)).hset(runMetaKey(runId), { version: meta.version, format: meta.format }).sadd(RUNS_KEY, runId).exec();
}

/** Whether the run is still registered: false once Redis lost its data (a restart without persistence, a flush, a failover). */
export async function isRegistered(redis: Redis, runId: string): Promise<boolean> {
  return (await redis.sismember(RUNS_KEY, runId)) === 1;
}

/** The run is done: workers retire it at once. */
export async function endRun(redis: Redis, runId: string): Promise<void> {
  await redis
    .multi()
    .set(endedKey(runId), '1', 'EX', 24 * 3600)
    .del(runMetaKey(runId))
    .srem(RUNS_KEY, runId)
    .exec();
}

/**
 * Why a worker must not serve a run, or undefined when it may: a coordinator of another Crucible
 * version or job format (or one that recorded none) would hand it jobs it could misread.
 */
export async function refusalOf(redis: Redis, runId: string): Promise<string | undefined> {
  const theirs = await redis.hgetall(runMetaKey(runId));
  const mine = ownMeta();
  if (theirs.version === mine.version && theirs.format === mine.format) return undefined;
  const them = theirs.version ? `Crucible ${theirs.version} (job format ${theirs.format ?? '?'})` : 'a Crucible version that records none';
  return `refusing run ${runId}: its coordinator runs ${them}, this worker runs Crucible ${mine.version} (job format ${mine.format}) (fix: run the same Crucible version on the coordinator and the workers)`;
}
