import { attemptConditions, whereOf, type SqlParams } from './attempt-filter.js';
import type { Db } from './connection.js';
import { checkedLimit, encodeCursor, paging } from './page.js';
import type { TrendQuery } from './queries.js';
import type { CellRow, HeldOutTally, TrendPoint } from './rows.js';
import { createTallyReader, hasTallies, tallyTrends, talliesAnswer, type RawCell, type TallyReader } from './tallies.js';

export interface Aggregates extends TallyReader {
  trends(query: TrendQuery): TrendPoint[];
  heldOut(runId: string): HeldOutTally[];
}

/*
 * Harness and task errors are not the agent's failure: they are counted apart and left out of
 * `n`, the denominator of every pass rate (ARCHITECTURE.md, grading rules).
 */
// UNSCORED_CAUSES of types/attempt.ts, spelled out: the store imports only types from outside itself.
export const UNSCORED_SQL = `a.cause IN ('harness_error', 'task_error', 'provider_error')`;
const UNSCORED = UNSCORED_SQL;
const TALLY = `
  sum(NOT ${UNSCORED}) AS n,
  sum(a.verdict = 'PASS' AND NOT ${UNSCORED}) AS passes,
  sum(${UNSCORED}) AS errors,
  sum(a.cause = 'provider_error') AS provider_errors`;

interface RawTrendPoint {
  bucket: string;
  at: string;
  agent: string;
  task_id: string | null;
  n: number;
  passes: number;
  errors: number;
  provider_errors: number;
}

function toTrendPoint(r: RawTrendPoint): TrendPoint {
  return { bucket: r.bucket, at: r.at, agent: r.agent, taskId: r.task_id, n: r.n, passes: r.passes, errors: r.errors, providerErrors: r.provider_errors };
}

function trendFilter(query: TrendQuery): { conditions: string[]; params: SqlParams } {
  return attemptConditions({ agent: query.agent, taskId: query.taskId, since: query.since });
}

function runTrends(db: Db, query: TrendQuery): TrendPoint[] {
  const { conditions, params } = trendFilter(query);
  const matching = ['a.run_id = r.run_id', ...conditions].join(' AND ');
  const task = query.perTask ? 'a.task_id' : 'NULL';
  params.limit = query.limit;
  // Walks runs newest first and stops after `limit` runs with a matching attempt.
  const sql = `
    WITH buckets AS (
      SELECT r.run_id, r.created_at FROM runs r
      WHERE EXISTS (SELECT 1 FROM attempts a WHERE ${matching})
      ORDER BY r.created_at DESC, r.run_id DESC LIMIT @limit
    )
    SELECT b.run_id AS bucket, b.created_at AS at, a.agent, ${task} AS task_id, ${TALLY}
    FROM buckets b JOIN attempts a ON a.run_id = b.run_id
    ${whereOf(conditions, params).sql}
    GROUP BY b.run_id, a.agent, ${task}
    ORDER BY b.created_at, b.run_id, a.agent, ${task}`;
  return db.prepare<[SqlParams], RawTrendPoint>(sql).all(params).map(toTrendPoint);
}

function dayTrends(db: Db, query: TrendQuery): TrendPoint[] {
  const { conditions, params } = trendFilter(query);
  // Hop back one day at a time with max(finished_at), an index seek each, instead of scanning
  // every matching attempt just to learn which days exist.
  const latestBefore = db
    .prepare<[SqlParams], string | null>(`SELECT max(a.finished_at) FROM attempts a ${whereOf([...conditions, 'a.finished_at < @before'], params).sql}`)
    .pluck();
  let before = '\u{10FFFF}';
  let days = 0;
  for (; days < query.limit; days++) {
    const latest = latestBefore.get({ ...params, before });
    if (latest === null || latest === undefined) break;
    before = `${latest.slice(0, 10)}T00:00:00.000Z`;
  }
  if (days === 0) return [];

  const task = query.perTask ? 'a.task_id' : 'NULL';
  const sql = `
    SELECT substr(a.finished_at, 1, 10) AS bucket, substr(a.finished_at, 1, 10) || 'T00:00:00.000Z' AS at,
      a.agent, ${task} AS task_id, ${TALLY}
    FROM attempts a ${whereOf([...conditions, 'a.finished_at >= @from'], params).sql}
    GROUP BY bucket, a.agent, ${task}
    ORDER BY bucket, a.agent, ${task}`;
  return db
    .prepare<[SqlParams], RawTrendPoint>(sql)
    .all({ ...params, from: before })
    .map(toTrendPoint);
}

/** On a file older than schema v6 (a read-only opener): every cell tallied from the attempts, then cut. */
function untalliedCells(cellsOfRun: (runId: string) => CellRow[]): TallyReader {
  const tasksOf = (runId: string): string[] => [...new Set(cellsOfRun(runId).map((c) => c.taskId))].sort();
  return {
    cells: cellsOfRun,
    cellPage(runId, request) {
      const page = paging(request, 'run-tasks');
      const tasks = tasksOf(runId).filter((t) => page.after === null || t > String(page.after.key));
      const shown = new Set(tasks.slice(0, page.limit));
      const items = cellsOfRun(runId)
        .filter((c) => shown.has(c.taskId))
        .sort((x, y) => (x.taskId === y.taskId ? (x.agent < y.agent ? -1 : 1) : x.taskId < y.taskId ? -1 : 1));
      const last = tasks[page.limit - 1];
      return { items, nextCursor: tasks.length > page.limit && last !== undefined ? encodeCursor('run-tasks', last, '') : null };
    },
    runTasks: (runId, limit) => tasksOf(runId).slice(0, checkedLimit(limit)),
  };
}

export function createAggregates(db: Db): Aggregates {
  const tallied = hasTallies(db);
  const cellsOfRun = db.prepare<[string], RawCell>(`
    SELECT a.agent, a.task_id, ${TALLY} FROM attempts a WHERE a.run_id = ?
    GROUP BY a.agent, a.task_id ORDER BY a.agent, a.task_id`);
  const cellsOfAttempts = (runId: string): CellRow[] =>
    cellsOfRun.all(runId).map((c) => ({ agent: c.agent, taskId: c.task_id, n: c.n, passes: c.passes, errors: c.errors, providerErrors: c.provider_errors }));

  // The run page's held-out cards over every attempt of the run, however many: one grouped scan
  // instead of reading the rows into the server.
  const heldOutOfRun = db.prepare<[string], { agent: string; with_held_out: number; passed: number; passed_public: number }>(`
    SELECT a.agent, count(*) AS with_held_out,
      sum(a.held_out_passed = a.held_out_total) AS passed,
      sum(a.held_out_passed < a.held_out_total AND a.cause = 'passed') AS passed_public
    FROM attempts a WHERE a.run_id = ? AND a.held_out_total > 0
    GROUP BY a.agent ORDER BY a.agent`);

  return {
    /** Oldest bucket first, so points plot left to right; at most `limit` buckets. */
    trends(query) {
      checkedLimit(query.limit);
      if (tallied && talliesAnswer(query)) return tallyTrends(db, query);
      // One read transaction: the day hops and the tally must see the same attempts.
      return db.transaction(() => (query.bucket === 'run' ? runTrends(db, query) : dayTrends(db, query)))();
    },
    ...(tallied ? createTallyReader(db) : untalliedCells(cellsOfAttempts)),
    heldOut(runId) {
      return heldOutOfRun
        .all(runId)
        .map((r) => ({ agent: r.agent, withHeldOut: r.with_held_out, heldOutPassed: r.passed, passedPublicFailedHeldOut: r.passed_public }));
    },
  };
}
