import type { Db } from './connection.js';
import { HistoryError, HistoryVersionError } from './errors.js';
import { withBusyRetry } from './retry.js';
import { SCHEMA_V1 } from './schema-v1.js';
import { SCHEMA_V2 } from './schema-v2.js';
import { SCHEMA_V3 } from './schema-v3.js';
import { SCHEMA_V4 } from './schema-v4.js';
import { SCHEMA_V5 } from './schema-v5.js';
import { SCHEMA_V6 } from './schema-v6.js';

interface Migration {
  version: number;
  sql: string;
}

/** Append only; `version` is what `PRAGMA user_version` holds after the migration ran. */
const MIGRATIONS: readonly Migration[] = [
  { version: 1, sql: SCHEMA_V1 },
  { version: 2, sql: SCHEMA_V2 },
  { version: 3, sql: SCHEMA_V3 },
  { version: 4, sql: SCHEMA_V4 },
  { version: 5, sql: SCHEMA_V5 },
  { version: 6, sql: SCHEMA_V6 },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The oldest schema a read-only opener can read. Every migration since only added tables or a
 * column with a default, and their readers tolerate the table or column being absent, so `crucible history` and the dashboard keep working on a
 * file no run has upgraded yet. Raise this when a migration changes what existing readers query.
 */
const OLDEST_READABLE_VERSION = 1;

/** 'CRCB': marks the file as ours, so we never migrate some other program's database. */
const APPLICATION_ID = 0x43524342;

function userVersion(db: Db): number {
  return Number(db.pragma('user_version', { simple: true }));
}

function assertCrucibleFile(db: Db, path: string): void {
  const appId = Number(db.pragma('application_id', { simple: true }));
  if (appId === APPLICATION_ID) return;
  const tables = Number(db.prepare('SELECT count(*) FROM sqlite_schema').pluck().get());
  if (appId === 0 && tables === 0) return;
  throw new HistoryError(`${path} is a SQLite database but not a Crucible history`);
}

function assertNotFromTheFuture(version: number, path: string): void {
  if (version > SCHEMA_VERSION) throw new HistoryVersionError(path, version, SCHEMA_VERSION);
}

/** Brings the file to SCHEMA_VERSION; safe when several processes open a fresh file at once. */
export function migrate(db: Db, path: string): void {
  assertCrucibleFile(db, path);
  assertNotFromTheFuture(userVersion(db), path);
  for (const migration of MIGRATIONS) {
    if (userVersion(db) >= migration.version) continue;
    const apply = db.transaction(() => {
      // Re-read under the write lock: another process may have migrated while we waited for it.
      const current = userVersion(db);
      assertNotFromTheFuture(current, path);
      if (current >= migration.version) return;
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
      db.pragma(`application_id = ${APPLICATION_ID}`);
    });
    withBusyRetry(() => apply.immediate());
  }
}

/** A read-only connection cannot migrate, so it only accepts a file its readers understand. */
export function assertReadableSchema(db: Db, path: string): void {
  assertCrucibleFile(db, path);
  const version = userVersion(db);
  assertNotFromTheFuture(version, path);
  if (version < OLDEST_READABLE_VERSION) {
    throw new HistoryError(`${path} uses history schema v${version}; open it once for writing to upgrade it to v${SCHEMA_VERSION}`);
  }
}
