import type { Redis } from 'ioredis';

/**
 * Logs each Redis outage once when it starts and once when it ends, with how long it lasted.
 * ioredis reconnects by itself (and emits `close` on every failed try): this only turns its
 * events into two lines per outage. `onBack` runs after each recovery (re-register, re-add).
 */
export function watchOutages(redis: Redis, who: string, url: string, log: (line: string) => void, onBack?: () => void): () => void {
  let downSince: number | undefined;
  let lastError = '';
  const onError = (error: Error): void => {
    lastError = error.message.split('\n')[0] ?? '';
  };
  const onClose = (): void => {
    if (downSince !== undefined) return;
    downSince = Date.now();
    log(`${who}: Redis at ${url} is unreachable${lastError ? ` (${lastError})` : ''}; waiting for it (reconnecting)`);
  };
  const onReady = (): void => {
    if (downSince === undefined) return;
    const seconds = ((Date.now() - downSince) / 1000).toFixed(1);
    downSince = undefined;
    lastError = '';
    log(`${who}: Redis at ${url} answers again after an outage of ${seconds} s`);
    onBack?.();
  };
  redis.on('error', onError);
  redis.on('close', onClose);
  redis.on('ready', onReady);
  return () => {
    redis.off('error', onError);
    redis.off('close', onClose);
    redis.off('ready', onReady);
  };
}
