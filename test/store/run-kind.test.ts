import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openHistory } from '../../src/infra/store/index.js';
import { SCHEMA_V1 } from '../../src/infra/store/schema-v1.js';
import { SCHEMA_V2 } from '../../src/infra/store/schema-v2.js';
import { runMeta, tempDir } from './helpers/attempts.js';

const tmp = tempDir('run-kind');
afterAll(tmp.cleanup);

describe('what a run was for', () => {
  it('records validate runs next to ordinary ones, and reads each kind back', () => {
    const history = openHistory(join(tmp.dir, 'kinds.db'));
    history.recordRun(runMeta('run-1'));
    history.recordRun(runMeta('val-1', { kind: 'validate', createdAt: '2025-03-01T11:00:00.000Z' }));
    expect(history.listRuns({ limit: 10 }).items.map((r) => [r.runId, r.kind])).toEqual([
      ['val-1', 'validate'],
      ['run-1', 'run'],
    ]);
    expect(history.getRun('val-1')?.kind).toBe('validate');
    expect(() => history.recordRun(runMeta('bad', { kind: 'other' as 'run' }))).toThrow(/CHECK/);
    history.close();
  });

  it('a read-only reader of a v2 file (no kind column) reads every run as `run`; a writer upgrades it', () => {
    const path = join(tmp.dir, 'v2.db');
    const raw = new Database(path);
    raw.exec(SCHEMA_V1);
    raw.exec(SCHEMA_V2);
    raw.pragma('user_version = 2');
    raw.pragma(`application_id = ${0x43524342}`);
    raw.prepare(`INSERT INTO runs (run_id, task_set, created_at, planned, agents) VALUES ('old', 't.yaml', '2025-01-01T00:00:00.000Z', 1, '[]')`).run();
    raw.close();
    const reader = openHistory(path, { readonly: true });
    expect(reader.listRuns({ limit: 5 }).items.map((r) => r.kind)).toEqual(['run']);
    expect(reader.getRun('old')?.kind).toBe('run');
    reader.close();
    const writer = openHistory(path);
    writer.recordRun(runMeta('new', { kind: 'validate' }));
    expect(writer.listRuns({ limit: 5 }).items.map((r) => [r.runId, r.kind])).toEqual([
      ['new', 'validate'],
      ['old', 'run'],
    ]);
    writer.close();
  });
});
