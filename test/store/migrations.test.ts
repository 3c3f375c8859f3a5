import { writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import { HistoryError, HistoryVersionError, SCHEMA_VERSION, openHistory, type History, type HistoryReader } from '../../src/infra/store/index.js';
import { attempt, runMeta, tempDir } from './helpers/attempts.js';

const tmp = tempDir('migrations');
afterAll(tmp.cleanup);

/** Reads pragmas straight from the file, the way an outside tool would see it. */
function pragma(path: string, name: string): unknown {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma(name, { simple: true });
  } finally {
    db.close();
  }
}

describe('openHistory', () => {
  it('creates parent directories and the current schema in WAL mode', () => {
    const path = join(tmp.dir, 'a', 'b', 'history.db');
    const history = openHistory(path);
    history.close();
    expect(existsSync(path)).toBe(true);
    expect(pragma(path, 'user_version')).toBe(SCHEMA_VERSION);
    expect(pragma(path, 'journal_mode')).toBe('wal');
  });

  it('keeps data across reopening and does not migrate twice', () => {
    const path = join(tmp.dir, 'reopen.db');
    const first = openHistory(path);
    first.recordRun(runMeta('run-1'));
    first.recordAttempt('run-1', attempt({ attemptId: 'att-1', runId: 'run-1' }));
    first.close();

    const second = openHistory(path);
    expect(second.countRuns()).toBe(1);
    expect(second.getAttempt('att-1')?.verdict).toBe('PASS');
    second.close();
    expect(pragma(path, 'user_version')).toBe(SCHEMA_VERSION);
  });

  it('enforces foreign keys: an attempt needs its run', () => {
    const history = openHistory(join(tmp.dir, 'fk.db'));
    expect(() => history.recordAttempt('nope', attempt({ attemptId: 'x', runId: 'nope' }))).toThrow(/recordRun/);
    history.close();
  });

  it('refuses a file written by a newer Crucible, naming the file', () => {
    const path = join(tmp.dir, 'future.db');
    openHistory(path).close();
    const raw = new Database(path);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();

    expect(() => openHistory(path)).toThrow(HistoryVersionError);
    expect(() => openHistory(path)).toThrow(path);
    expect(() => openHistory(path, { readonly: true })).toThrow(HistoryVersionError);
  });

  it('refuses a SQLite file that is not a Crucible history', () => {
    const path = join(tmp.dir, 'other.db');
    const raw = new Database(path);
    raw.exec('CREATE TABLE notes (body TEXT)');
    raw.close();
    expect(() => openHistory(path)).toThrow(/not a Crucible history/);
  });

  it('refuses a file that is not SQLite at all', () => {
    const path = join(tmp.dir, 'junk.db');
    writeFileSync(path, 'this is not a database, just some text that is long enough '.repeat(20));
    expect(() => openHistory(path)).toThrow(HistoryError);
    expect(() => openHistory(path)).toThrow(/not a SQLite database/);
  });

  it('read-only: needs an existing file, reads it, and offers no writes', () => {
    const path = join(tmp.dir, 'ro.db');
    expect(() => openHistory(path, { readonly: true })).toThrow(HistoryError);
    expect(existsSync(path)).toBe(false);

    const writer = openHistory(path);
    writer.recordRun(runMeta('run-ro'));
    const reader = openHistory(path, { readonly: true });
    expect(reader.getRun('run-ro')?.taskSet).toBe('tasks/demo.yaml');
    expect('recordRun' in reader).toBe(false);
    // A reader sees what the writer commits after it opened (WAL, no reopen).
    writer.recordAttempt('run-ro', attempt({ attemptId: 'ro-1', runId: 'run-ro' }));
    expect(reader.countAttempts({ runId: 'run-ro' })).toBe(1);
    reader.close();
    writer.close();
  });

  it('read-only refuses a file still at an older schema', () => {
    const path = join(tmp.dir, 'empty.db');
    new Database(path).close();
    expect(() => openHistory(path, { readonly: true })).toThrow(/open it once for writing/);
  });

  it('promises writes only when the caller cannot be opening read-only', () => {
    const path = join(tmp.dir, 'types.db');
    const decidedAtRunTime = process.env.CRUCIBLE_NEVER_SET === '1';
    const writable = openHistory(path);
    const maybeReadonly = openHistory(path, { readonly: decidedAtRunTime });
    expectTypeOf(writable).toEqualTypeOf<History>();
    expectTypeOf(maybeReadonly).toEqualTypeOf<HistoryReader>();
    expectTypeOf(openHistory(path, { readonly: true })).toEqualTypeOf<HistoryReader>();
    maybeReadonly.close();
    writable.close();
  });

  it('close is idempotent', () => {
    const history = openHistory(join(tmp.dir, 'close.db'));
    history.close();
    expect(() => history.close()).not.toThrow();
  });
});
