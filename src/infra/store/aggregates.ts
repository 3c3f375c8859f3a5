import { attemptConditions, whereOf, type SqlParams } from './attempt-filter.js';
import type { Db } from './connection.js';
import { checkedLimit } from './page.js';
import type { TrendQuery } from './queries.js';
import type { CellRow, HeldOutTally, TrendPoint } from './rows.js';

export interface Aggregates {
  trends(query: TrendQuery): TrendPoint[];
  cells(runId: string): CellRow[];
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

interface RawCell {
  agent: string;
  task_id: string;
  n: number;
  passes: number;
  errors: number;
  provider_errors: number;
}

export function createAggregates(db: Db): Aggregates {
  const cellsOfRun = db.prepare<[string], RawCell>(`
    SELECT a.agent, a.task_id, ${TALLY} FROM attempts a WHERE a.run_id = ?
    GROUP BY a.agent, a.task_id ORDER BY a.agent, a.task_id`);

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
      // One read transaction: the day hops and the tally must see the same attempts.
      return db.transaction(() => (query.bucket === 'run' ? runTrends(db, query) : dayTrends(db, query)))();
    },
    cells(runId) {
      return cellsOfRun
        .all(runId)
        .map((c) => ({ agent: c.agent, taskId: c.task_id, n: c.n, passes: c.passes, errors: c.errors, providerErrors: c.provider_errors }));
    },
    heldOut(runId) {
      return heldOutOfRun
        .all(runId)
        .map((r) => ({ agent: r.agent, withHeldOut: r.with_held_out, heldOutPassed: r.passed, passedPublicFailedHeldOut: r.passed_public }));
    },
  };
}
