import { whereOf, type SqlParams } from './attempt-filter.js';
import type { Db } from './connection.js';
import { HistoryError } from './errors.js';
import { checkedLimit, encodeCursor, paging } from './page.js';
import type { Page, PageRequest, TrendQuery } from './queries.js';
import type { CellRow, TrendPoint } from './rows.js';
import { parseSince } from './time.js';

/*
 * Reads of schema v6's tallies (schema-v6.ts). A read-only opener of an older file has none, and
 * its callers fall back to tallying the attempts themselves.
 */

export function hasTallies(db: Db): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'attempt_tallies'").get() !== undefined;
}

const SUMS = 'sum(t.n) AS n, sum(t.passes) AS passes, sum(t.errors) AS errors, sum(t.provider_errors) AS provider_errors';

export interface RawCell {
  agent: string;
  task_id: string;
  n: number;
  passes: number;
  errors: number;
  provider_errors: number;
}

const toCell = (c: RawCell): CellRow => ({ agent: c.agent, taskId: c.task_id, n: c.n, passes: c.passes, errors: c.errors, providerErrors: c.provider_errors });

interface RawTrendPoint extends Omit<RawCell, 'task_id'> {
  bucket: string;
  at: string;
  task_id: string | null;
}

const toTrendPoint = (r: RawTrendPoint): TrendPoint => ({
  bucket: r.bucket,
  at: r.at,
  agent: r.agent,
  taskId: r.task_id,
  n: r.n,
  passes: r.passes,
  errors: r.errors,
  providerErrors: r.provider_errors,
});

/**
 * The tallies hold whole days, so they answer a trend query only when its `since` (if any) falls
 * on a day's start; otherwise the attempts are read as before, and the answer stays exact.
 */
export function talliesAnswer(query: TrendQuery): boolean {
  return query.since === undefined || parseSince(query.since).endsWith('T00:00:00.000Z');
}

/** A task filter narrows to attempt_tallies; without one, agent_tallies (a row per run, agent and day) suffices. */
function tallySource(query: TrendQuery): { table: string; conditions: string[]; params: SqlParams } {
  const conditions: string[] = [];
  const params: SqlParams = {};
  if (query.agent !== undefined) {
    conditions.push('t.agent = @agent');
    params.agent = query.agent;
  }
  if (query.taskId !== undefined) {
    conditions.push('t.task_id = @taskId');
    params.taskId = query.taskId;
  }
  if (query.since !== undefined) {
    conditions.push('t.day >= @sinceDay');
    params.sinceDay = parseSince(query.since).slice(0, 10);
  }
  const table = query.perTask || query.taskId !== undefined ? 'attempt_tallies' : 'agent_tallies';
  return { table, conditions, params };
}

export function tallyTrends(db: Db, query: TrendQuery): TrendPoint[] {
  const { table, conditions, params } = tallySource(query);
  const task = query.perTask ? 't.task_id' : 'NULL';
  params.limit = query.limit;
  if (query.bucket === 'day') {
    const sql = `
      WITH days AS (SELECT DISTINCT t.day FROM ${table} t ${whereOf(conditions, params).sql} ORDER BY t.day DESC LIMIT @limit)
      SELECT t.day AS bucket, t.day || 'T00:00:00.000Z' AS at, t.agent, ${task} AS task_id, ${SUMS}
      FROM ${table} t ${whereOf([...conditions, 't.day IN (SELECT day FROM days)'], params).sql}
      GROUP BY t.day, t.agent, ${task}
      ORDER BY t.day, t.agent, ${task}`;
    return db.prepare<[SqlParams], RawTrendPoint>(sql).all(params).map(toTrendPoint);
  }
  const matching = ['t.run_id = r.run_id', ...conditions].join(' AND ');
  const sql = `
    WITH buckets AS (
      SELECT r.run_id, r.created_at FROM runs r
      WHERE EXISTS (SELECT 1 FROM ${table} t WHERE ${matching})
      ORDER BY r.created_at DESC, r.run_id DESC LIMIT @limit
    )
    SELECT b.run_id AS bucket, b.created_at AS at, t.agent, ${task} AS task_id, ${SUMS}
    FROM buckets b JOIN ${table} t ON t.run_id = b.run_id
    ${whereOf(conditions, params).sql}
    GROUP BY b.run_id, t.agent, ${task}
    ORDER BY b.created_at, b.run_id, t.agent, ${task}`;
  return db.prepare<[SqlParams], RawTrendPoint>(sql).all(params).map(toTrendPoint);
}

export interface TallyReader {
  /** A run's cells (agent × task), ordered by agent then task. */
  cells(runId: string): CellRow[];
  /** A run's cells a page of tasks at a time (`limit` tasks, every agent of each), in task order. */
  cellPage(runId: string, request: PageRequest): Page<CellRow>;
  /** The run's task ids in order, at most `limit`. */
  runTasks(runId: string, limit: number): string[];
}

export function createTallyReader(db: Db): TallyReader {
  const cells = db.prepare<[string], RawCell>(
    `SELECT t.agent, t.task_id, ${SUMS} FROM attempt_tallies t WHERE t.run_id = ? GROUP BY t.agent, t.task_id ORDER BY t.agent, t.task_id`,
  );
  const tasksAfter = db
    .prepare<[string, string, number], string>('SELECT DISTINCT task_id FROM attempt_tallies WHERE run_id = ? AND task_id > ? ORDER BY task_id LIMIT ?')
    .pluck();
  const cellsOfTasks = db.prepare<[string, string, string], RawCell>(
    `SELECT t.agent, t.task_id, ${SUMS} FROM attempt_tallies t WHERE t.run_id = ? AND t.task_id >= ? AND t.task_id <= ?
     GROUP BY t.task_id, t.agent ORDER BY t.task_id, t.agent`,
  );
  return {
    cells: (runId) => cells.all(runId).map(toCell),
    cellPage(runId, request) {
      const page = paging(request, 'run-tasks');
      if (page.offset > 0) throw new HistoryError('cell pages take a cursor, not an offset');
      const tasks = tasksAfter.all(runId, page.after ? String(page.after.key) : '', page.limit + 1);
      const shown = tasks.slice(0, page.limit);
      const first = shown[0];
      const last = shown[shown.length - 1];
      const items = first === undefined || last === undefined ? [] : cellsOfTasks.all(runId, first, last).map(toCell);
      return { items, nextCursor: tasks.length > page.limit && last !== undefined ? encodeCursor('run-tasks', last, '') : null };
    },
    runTasks: (runId, limit) => tasksAfter.all(runId, '', checkedLimit(limit)),
  };
}
