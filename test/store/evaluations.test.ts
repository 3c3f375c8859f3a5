import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { HistoryError, SCHEMA_VERSION, openHistory, type EvaluationRecord } from '../../src/infra/store/index.js';
import { SCHEMA_V1 } from '../../src/infra/store/schema-v1.js';
import { attempt, tempDir } from './helpers/attempts.js';

const tmp = tempDir('evaluations');
afterAll(tmp.cleanup);

function evaluation(id: string, overrides: Partial<EvaluationRecord> = {}): EvaluationRecord {
  return {
    id,
    kind: 'ci',
    createdAt: '2025-03-01T10:00:00.000Z',
    verdict: 'PASS',
    title: `${id} title`,
    reportDir: `/tmp/reports/${id}`,
    detail: { id, checks: [{ name: 'tampered', passed: true }] },
    ...overrides,
  };
}

/** A file exactly as Crucible wrote it before issue 14: schema v1, with one run and one attempt. */
function writeV1File(path: string): void {
  const raw = new Database(path);
  raw.exec(SCHEMA_V1);
  raw.pragma('user_version = 1');
  raw.pragma(`application_id = ${0x43524342}`);
  raw.close();
}

describe('evaluations in the history', () => {
  it('records and reads back every field; runId is absent when not given', () => {
    const history = openHistory(join(tmp.dir, 'fields.db'));
    history.recordEvaluation(evaluation('ci-1'));
    history.recordEvaluation(evaluation('gate-1', { kind: 'gate', verdict: 'FAIL', runId: 'run-9', createdAt: '2025-03-01T12:00:00+02:00' }));
    const [gate, ci] = history.listEvaluations();
    expect(ci).toEqual(evaluation('ci-1'));
    expect(ci !== undefined && 'runId' in ci).toBe(false);
    // Offsets are normalised to UTC so text order stays time order.
    expect(gate).toEqual(evaluation('gate-1', { kind: 'gate', verdict: 'FAIL', runId: 'run-9', createdAt: '2025-03-01T10:00:00.000Z' }));
    history.close();
  });

  it('upserts by id: recording the same id again replaces it', () => {
    const history = openHistory(join(tmp.dir, 'upsert.db'));
    history.recordEvaluation(evaluation('gate-a', { kind: 'gate', verdict: 'FAIL' }));
    history.recordEvaluation(evaluation('gate-a', { kind: 'gate', verdict: 'PASS', title: 'retried' }));
    const rows = history.listEvaluations();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.verdict).toBe('PASS');
    expect(rows[0]?.title).toBe('retried');
    history.close();
  });

  it('lists newest first, filtered by kind, limited', () => {
    const history = openHistory(join(tmp.dir, 'list.db'));
    const times = ['2025-03-01T10:00:00.000Z', '2025-03-03T10:00:00.000Z', '2025-03-02T10:00:00.000Z', '2025-03-04T10:00:00.000Z'];
    times.forEach((createdAt, i) => history.recordEvaluation(evaluation(`e-${i}`, { createdAt, kind: i % 2 === 0 ? 'ci' : 'gate' })));
    expect(history.listEvaluations().map((e) => e.id)).toEqual(['e-3', 'e-1', 'e-2', 'e-0']);
    expect(history.listEvaluations({ kind: 'ci' }).map((e) => e.id)).toEqual(['e-2', 'e-0']);
    expect(history.listEvaluations({ kind: 'gate', limit: 1 }).map((e) => e.id)).toEqual(['e-3']);
    expect(history.listEvaluations({ limit: 2 }).map((e) => e.id)).toEqual(['e-3', 'e-1']);
    history.close();
  });

  it('defaults to 50 and refuses a bad limit or kind', () => {
    const history = openHistory(join(tmp.dir, 'limit.db'));
    for (let i = 0; i < 55; i += 1) history.recordEvaluation(evaluation(`e-${String(i).padStart(2, '0')}`));
    expect(history.listEvaluations()).toHaveLength(50);
    expect(() => history.listEvaluations({ limit: 0 })).toThrow(HistoryError);
    expect(() => history.listEvaluations({ limit: 1.5 })).toThrow(/limit/);
    expect(() => history.listEvaluations({ kind: 'run' as 'ci' })).toThrow(/kind/);
    expect(() => history.recordEvaluation(evaluation('x', { createdAt: 'yesterday' }))).toThrow(/createdAt/);
    history.close();
  });

  it('a read-only reader sees what the writer recorded', () => {
    const path = join(tmp.dir, 'ro.db');
    const writer = openHistory(path);
    writer.recordEvaluation(evaluation('ci-ro'));
    const reader = openHistory(path, { readonly: true });
    expect(reader.listEvaluations({ kind: 'ci' }).map((e) => e.id)).toEqual(['ci-ro']);
    reader.close();
    writer.close();
  });
});

describe('migration from schema v1', () => {
  it('the current schema is v6 (v3 added the runs kind column, v4 the ERROR verdict of an evaluation, v5 covering indexes, v6 the tallies and the stored stats head)', () => {
    expect(SCHEMA_VERSION).toBe(6);
  });

  it('moves a v1 file forward keeping its runs and attempts, then stores evaluations', () => {
    const path = join(tmp.dir, 'v1.db');
    writeV1File(path);
    // Data written through the v1 schema (here by a current writer's SQL, which v1 already had).
    const raw = new Database(path);
    raw
      .prepare(
        `INSERT INTO runs (run_id, task_set, created_at, planned, agents) VALUES ('run-old', 'tasks/demo.yaml', '2025-01-01T00:00:00.000Z', 1, '["oracle"]')`,
      )
      .run();
    raw.close();

    const history = openHistory(path);
    expect(history.getRun('run-old')?.taskSet).toBe('tasks/demo.yaml');
    history.recordAttempt('run-old', attempt({ attemptId: 'att-old', runId: 'run-old' }));
    history.recordEvaluation(evaluation('gate-new', { kind: 'gate', runId: 'run-old' }));
    history.recordEvaluation(evaluation('ci-error', { kind: 'ci', verdict: 'ERROR' }));
    expect(history.listEvaluations().map((e) => [e.id, e.verdict, e.runId])).toEqual(
      expect.arrayContaining([
        ['gate-new', 'PASS', 'run-old'],
        ['ci-error', 'ERROR', undefined],
      ]),
    );
    history.close();

    const check = new Database(path, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(6);
    check.close();
  });

  it('read-only opening of a v1 file still reads runs and lists no evaluations', () => {
    const path = join(tmp.dir, 'v1-ro.db');
    writeV1File(path);
    const writer = new Database(path);
    writer
      .prepare(`INSERT INTO runs (run_id, task_set, created_at, planned, agents) VALUES ('run-v1', 'tasks/demo.yaml', '2025-01-01T00:00:00.000Z', 1, '[]')`)
      .run();
    writer.close();
    const reader = openHistory(path, { readonly: true });
    expect(reader.getRun('run-v1')).toMatchObject({ runId: 'run-v1', kind: 'run' });
    expect(reader.listRuns({ limit: 5 }).items.map((r) => [r.runId, r.kind])).toEqual([['run-v1', 'run']]);
    expect(reader.listEvaluations()).toEqual([]);
    reader.close();
  });

  it('two writers opening the same v1 file migrate it once and share the table', () => {
    const path = join(tmp.dir, 'v1-twice.db');
    writeV1File(path);
    const a = openHistory(path);
    const b = openHistory(path);
    a.recordEvaluation(evaluation('ci-a'));
    expect(b.listEvaluations().map((e) => e.id)).toEqual(['ci-a']);
    a.close();
    b.close();
  });
});
