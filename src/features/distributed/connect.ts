import { Redis } from 'ioredis';
import { InputError } from '../../core/errors.js';
import { QUEUE_PASSWORD_ENV, redisOptions, type QueueAddress } from './url.js';

/**
 * Checks that a Redis server answers at `address` before any work starts, so a wrong URL or a
 * stopped server is one line (exit 2) instead of a process waiting forever for a connection.
 * Later outages are waited out: BullMQ's connections reconnect.
 */
export async function checkQueueReachable(flag: string, address: QueueAddress, timeoutMs = 5_000): Promise<void> {
  const redis = new Redis({ ...redisOptions(address), maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true, connectTimeout: timeoutMs });
  // ioredis reports a refused AUTH on its error event and then rejects with "Connection is closed".
  let refused = '';
  redis.on('error', (error: Error) => {
    if (/WRONGPASS|NOAUTH/.test(error.message)) refused = error.message;
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    const why = refused || (error instanceof Error ? error.message : String(error));
    // A server that answers but refuses the password is not "no Redis": say which it is.
    if (/WRONGPASS/.test(why))
      throw new InputError(
        `${flag} ${address.url}: Redis refused the password (${firstLine(why)}) (fix: set ${QUEUE_PASSWORD_ENV} to the server's requirepass)`,
      );
    if (/NOAUTH/.test(why))
      throw new InputError(
        `${flag} ${address.url}: Redis requires a password and none was given (${firstLine(why)}) (fix: set ${QUEUE_PASSWORD_ENV} to the server's requirepass)`,
      );
    throw new InputError(
      `${flag} ${address.url}: no Redis answers (${why.split('\n')[0]}) (fix: start redis-server there, or check the host, port and CRUCIBLE_QUEUE_PASSWORD)`,
    );
  } finally {
    redis.disconnect();
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}
