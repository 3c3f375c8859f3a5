import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { HistoryError } from './errors.js';
import { withBusyRetry } from './retry.js';

export type Db = Database.Database;

/** Long enough to ride out another process's write transaction, short enough to surface a hang. */
export const BUSY_TIMEOUT_MS = 5000;

const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Opens the file with the pragmas every connection needs; the schema is handled by migrations. */
export function openConnection(path: string, readonly: boolean): Db {
  if (!readonly) mkdirSync(dirname(resolve(path)), { recursive: true });
  let db: Db;
  try {
    db = new Database(path, { readonly, fileMustExist: readonly, timeout: BUSY_TIMEOUT_MS });
  } catch (error) {
    const reason = readonly ? 'no history file there, or it cannot be read' : describe(error);
    throw new HistoryError(`cannot open history ${path}: ${reason}`, { cause: error });
  }
  try {
    // WAL lets readers (the dashboard) run while an engine writes; the mode persists in the file,
    // so a read-only connection just uses whatever the writer set.
    if (!readonly) withBusyRetry(() => db.pragma('journal_mode = WAL'));
    // A big import grows the WAL to its own size; past this it is truncated after checkpoints.
    if (!readonly) db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('foreign_keys = ON');
    // NORMAL is durable against process crashes in WAL mode; only power loss may drop the last commits.
    db.pragma('synchronous = NORMAL');
  } catch (error) {
    db.close();
    const notADb = typeof error === 'object' && error !== null && 'code' in error && error.code === 'SQLITE_NOTADB';
    const reason = notADb ? 'the file is not a SQLite database' : describe(error);
    throw new HistoryError(`cannot open history ${path}: ${reason}`, { cause: error });
  }
  return db;
}
