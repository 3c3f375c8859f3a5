/*
 * busy_timeout makes SQLite wait for a lock, but some conflicts are reported at once without
 * calling the busy handler (a stale WAL snapshot, switching the journal mode while another
 * process opens the same fresh file). Those are safe to retry from the start of the transaction.
 */

const RETRY_DELAYS_MS = [20, 50, 100, 200, 400, 800, 1600];

export function isBusyError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) return false;
  const code = String(error.code);
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/** The store is synchronous (better-sqlite3), so the back-off blocks too, without spinning. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** `canRetry` lets work that consumed something unrepeatable (an iterator) refuse a second go. */
export function withBusyRetry<T>(work: () => T, canRetry: () => boolean = () => true): T {
  for (let attempt = 0; ; attempt++) {
    try {
      return work();
    } catch (error) {
      const delay = RETRY_DELAYS_MS[attempt];
      if (delay === undefined || !isBusyError(error) || !canRetry()) throw error;
      sleepSync(delay + Math.floor(Math.random() * delay));
    }
  }
}
