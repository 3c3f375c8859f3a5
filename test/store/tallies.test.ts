/**
 * Schema v6's tallies: kept in step with the attempts by the store itself (record, re-record with
 * another verdict or day, delete), filled in once for a history written before them, and read a
 * page of tasks at a time.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Cause } from '../../src/core/types/index.js';
import { openHistory, SCHEMA_VERSION, type History } from '../../src/infra/store/index.js';
import { attempt, runMeta, tempDir } from './helpers/attempts.js';

const dirs: Array<() => void> = [];
afterEach(() => dirs.splice(0).forEach((cleanup) => cleanup()));

function freshHistory(): { path: string; history: History } {
  const tmp = tempDir('tallies');
  dirs.push(tmp.cleanup);
  const path = join(tmp.dir, 'history.db');
  return { path, history: openHistory(path) };
}

const CAUSES: Cause[] = ['passed', 'tests_failed', 'harness_error', 'provider_error', 'passed', 'regression'];

/** Attempts over 3 agents × 7 tasks × 2 trials, finishing over two days, with every kind of cause. */
function record(history: History, runId: string): void {
  history.recordRun(runMeta(runId, { agents: ['a0', 'a1', 'a2'] }));
  const entries = [];
  let index = 0;
  for (let t = 0; t < 7; t++) {
    for (let g = 0; g < 3; g++) {
      for (let k = 0; k < 2; k++, index++) {
        const finishedAt = `2025-03-0${1 + (index % 2)}T1${index % 10}:00:00.000Z`;
        const a = attempt({
          attemptId: `${runId}-${index}`,
          runId,
          taskId: `t${t}`,
          agent: `a${g}`,
          trial: k,
          index,
          cause: CAUSES[index % CAUSES.length],
          finishedAt,
        });
        entries.push({ attempt: a });
      }
    }
  }
  history.recordAttempts(runId, entries);
}

const UNSCORED = "cause IN ('harness_error', 'task_error', 'provider_error')";

/** What the tallies must hold: the attempts table grouped, as the readers tallied it before v6. */
function fromAttempts(db: Database.Database): { agents: unknown[]; cells: unknown[] } {
  const tally = `count(*) AS attempts, sum(NOT ${UNSCORED}) AS n, sum(verdict = 'PASS' AND NOT ${UNSCORED}) AS passes, sum(${UNSCORED}) AS errors, sum(cause = 'provider_error') AS provider_errors`;
  return {
    agents: db
      .prepare(
        `SELECT run_id, agent, substr(finished_at, 1, 10) AS day, ${tally}, sum(verdict = 'PASS') AS pass, sum(verdict = 'FAIL') AS fail, sum(verdict = 'ERROR') AS error
         FROM attempts GROUP BY run_id, agent, day ORDER BY run_id, agent, day`,
      )
      .all(),
    cells: db
      .prepare(
        `SELECT run_id, task_id, agent, substr(finished_at, 1, 10) AS day, ${tally} FROM attempts GROUP BY run_id, task_id, agent, day ORDER BY run_id, task_id, agent, day`,
      )
      .all(),
  };
}

function stored(db: Database.Database): { agents: unknown[]; cells: unknown[] } {
  return {
    agents: db.prepare('SELECT * FROM agent_tallies ORDER BY run_id, agent, day').all(),
    cells: db.prepare('SELECT * FROM attempt_tallies ORDER BY run_id, task_id, agent, day').all(),
  };
}

describe('tallies of schema v6', () => {
  it('follow every write to the attempts: record, re-record with another verdict and day, delete', () => {
    const { path, history } = freshHistory();
    record(history, 'r1');
    record(history, 'r2');
    // Re-recorded: another cause (so verdict and n move) on another day and for another agent.
    history.recordAttempt(
      'r1',
      attempt({ attemptId: 'r1-3', runId: 'r1', taskId: 't0', agent: 'a2', cause: 'harness_error', index: 3, finishedAt: '2025-03-09T00:00:00.000Z' }),
    );
    expect(history.deleteAttempts('r2', ['r2-0', 'r2-1', 'r2-2'])).toBe(3);
    history.close();
    const db = new Database(path, { readonly: true });
    try {
      const expected = fromAttempts(db);
      expect(expected.cells.length).toBeGreaterThan(40);
      expect(stored(db)).toEqual(expected);
    } finally {
      db.close();
    }
  });

  it('are filled in once for a history written before them, and the stats head beside the stats', () => {
    const { path, history } = freshHistory();
    record(history, 'r1');
    history.finishRun('r1', {
      finishedAt: '2025-03-03T00:00:00.000Z',
      executed: 42,
      stoppedEarly: false,
      counts: { PASS: 1, FAIL: 1, ERROR: 1 },
      stats: { schemaVersion: 1, agents: [], cells: [{ agent: 'a0', taskId: 't0' }], comparisons: [], notes: ['kept'] },
    });
    history.close();
    // Back to schema v5, as a history written by an earlier Crucible.
    const raw = new Database(path);
    raw.exec(
      'DROP TRIGGER attempts_tally_insert; DROP TRIGGER attempts_tally_update; DROP TRIGGER attempts_tally_delete; DROP TABLE agent_tallies; DROP TABLE attempt_tallies; ALTER TABLE runs DROP COLUMN stats_head; PRAGMA user_version = 5;',
    );
    const expected = fromAttempts(raw);
    raw.close();

    const old = openHistory(path, { readonly: true });
    expect(old.cells('r1')).toHaveLength(21);
    expect(old.getRunHead('r1')?.stats).toMatchObject({ cells: [], notes: ['kept'] });
    old.close();

    openHistory(path).close();
    const db = new Database(path, { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(stored(db)).toEqual(expected);
      expect(JSON.parse(db.prepare("SELECT stats_head FROM runs WHERE run_id = 'r1'").pluck().get() as string)).toMatchObject({ cells: [], notes: ['kept'] });
    } finally {
      db.close();
    }
    const reader = openHistory(path, { readonly: true });
    expect(reader.getRun('r1')?.stats).toMatchObject({ cells: [{ agent: 'a0', taskId: 't0' }] });
    expect(reader.getRunHead('r1')?.stats).toMatchObject({ cells: [], notes: ['kept'] });
    reader.close();
  });

  it('answer a run page: counts, cells a page of tasks at a time with a cursor, task ids', () => {
    const { history } = freshHistory();
    record(history, 'r1');
    const all = history.cells('r1');
    expect(all).toHaveLength(21);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = history.cellPage('r1', { limit: 3, ...(cursor ? { cursor } : {}) });
      expect(new Set(page.items.map((c) => c.taskId)).size).toBeLessThanOrEqual(3);
      seen.push(...page.items.map((c) => `${c.taskId}/${c.agent}`));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(all.map((c) => `${c.taskId}/${c.agent}`).sort());
    expect(history.runTasks('r1', 4)).toEqual(['t0', 't1', 't2', 't3']);
    expect(history.countAttempts({ runId: 'r1' })).toBe(42);
    expect(history.listRuns({ limit: 1 }).items[0]?.recorded).toEqual({ attempts: 42, PASS: 14, FAIL: 14, ERROR: 14 });
    expect(() => history.cellPage('r1', { limit: 3, cursor: history.listRuns({ limit: 1 }).nextCursor ?? 'bad' })).toThrow(/cursor/);
    history.close();
  });

  it('give the trends the attempts give: by day and by run, per task, for one agent or task', () => {
    const { history } = freshHistory();
    record(history, 'r1');
    record(history, 'r2');
    const queries = [
      { bucket: 'day' as const, limit: 30 },
      { bucket: 'day' as const, limit: 1 },
      { bucket: 'day' as const, limit: 30, perTask: true, agent: 'a1' },
      { bucket: 'day' as const, limit: 30, taskId: 't3' },
      { bucket: 'run' as const, limit: 30 },
      { bucket: 'run' as const, limit: 1, perTask: true },
      { bucket: 'run' as const, limit: 30, agent: 'a2', since: '2025-03-02T00:00:00.000Z' },
    ];
    for (const q of queries) {
      // A `since` inside a day is answered from the attempts; one a millisecond earlier than the
      // day's start finds the same attempts here, so the two paths must agree.
      const fromTallies = history.trends({ ...q, since: q.since ?? '2025-01-01T00:00:00.000Z' });
      const fromRows = history.trends({ ...q, since: new Date(Date.parse(q.since ?? '2025-01-01T00:00:00.000Z') - 1).toISOString() });
      expect(fromTallies.length, JSON.stringify(q)).toBeGreaterThan(0);
      expect(fromTallies, JSON.stringify(q)).toEqual(fromRows);
    }
    history.close();
  });
});
