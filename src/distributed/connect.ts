import { Redis } from 'ioredis';
import { InputError } from '../errors.js';
import { redisOptions, type QueueAddress } from './url.js';

/**
 * Checks that a Redis server answers at `address` before any work starts, so a wrong URL or a
 * stopped server is one line (exit 2) instead of a process waiting forever for a connection.
 * Later outages are waited out: BullMQ's connections reconnect.
 */
export async function checkQueueReachable(flag: string, address: QueueAddress, timeoutMs = 5_000): Promise<void> {
  const redis = new Redis({ ...redisOptions(address), maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true, connectTimeout: timeoutMs });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new InputError(
      `${flag} ${address.url}: no Redis answers (${why.split('\n')[0]}) (fix: start redis-server there, or check the host, port and CRUCIBLE_QUEUE_PASSWORD)`,
    );
  } finally {
    redis.disconnect();
  }
}
