import { whereOf, type SqlParams } from './attempt-filter.js';
import type { Db } from './connection.js';
import { paging, toPage, type Paging } from './page.js';
import { STATS_HEAD_SQL } from './schema-v6.js';
import { hasTallies } from './tallies.js';
import type { Page, PageRequest, RunFilter } from './queries.js';
import type { HistoryRunKind, RunDetail, RunRow, VerdictCounts } from './rows.js';
import { parseSince } from './time.js';

export interface RunReader {
  listRuns(query: RunFilter & PageRequest): Page<RunRow>;
  countRuns(filter?: RunFilter): number;
  getRun(runId: string): RunDetail | undefined;
  /** getRun with the statistics' `cells` left empty: a run page's read, whatever the run's size (its cells are tallies). */
  getRunHead(runId: string): RunDetail | undefined;
  /**
   * What getRun would say has changed, without reading its statistics or tallying a finished run:
   * its kind, and a version that changes when it records an attempt or finishes. For callers that
   * cache what they build from getRun.
   */
  runVersion(runId: string): RunVersion | undefined;
}

export interface RunVersion {
  kind: HistoryRunKind;
  version: string;
}

interface RawRunRow {
  run_id: string;
  task_set: string;
  created_at: string;
  finished_at: string | null;
  planned: number;
  executed: number;
  stopped_early: number;
  config_hash: string | null;
  /** Absent in a file older than schema v3, opened read-only. */
  kind?: string;
  agents: string;
  counts: string | null;
  summary: string | null;
  /** JSON of RunRow['recorded']. */
  recorded: string;
}

/**
 * The recorded counts of the runs already chosen (CTE `chosen`): read from agent_tallies (schema v6),
 * a row per agent and day, or on an older file tallied from the attempts, one covering-index scan per run.
 * Either way a page costs its own runs, not the whole history's.
 */
function withRecordedCounts(chosenSql: string, orderBy: string, withTallies: boolean): string {
  const recorded = withTallies
    ? `(SELECT json_object('attempts', coalesce(sum(t.attempts), 0), 'PASS', coalesce(sum(t.pass), 0),
        'FAIL', coalesce(sum(t.fail), 0), 'ERROR', coalesce(sum(t.error), 0))
      FROM agent_tallies t WHERE t.run_id = c.run_id)`
    : `(SELECT json_object('attempts', count(*), 'PASS', coalesce(sum(a.verdict = 'PASS'), 0),
        'FAIL', coalesce(sum(a.verdict = 'FAIL'), 0), 'ERROR', coalesce(sum(a.verdict = 'ERROR'), 0))
      FROM attempts a WHERE a.run_id = c.run_id)`;
  return `
    WITH chosen AS (${chosenSql})
    SELECT c.*, ${recorded} AS recorded
    FROM chosen c
    ORDER BY ${orderBy}`;
}

function runConditions(filter: RunFilter): { conditions: string[]; params: SqlParams } {
  const conditions: string[] = [];
  const params: SqlParams = {};
  if (filter.agent !== undefined) {
    conditions.push('EXISTS (SELECT 1 FROM json_each(r.agents) WHERE json_each.value = @agent)');
    params.agent = filter.agent;
  }
  if (filter.since !== undefined) {
    conditions.push('r.created_at >= @since');
    params.since = parseSince(filter.since);
  }
  return { conditions, params };
}

/** Whether the runs table has v3's `kind` column: a read-only opener may hold an older file. */
function hasKindColumn(db: Db): boolean {
  return db.prepare("SELECT 1 FROM pragma_table_info('runs') WHERE name = 'kind'").get() !== undefined;
}

export function listRunsQuery(query: RunFilter & PageRequest, withKind = true, withTallies = true): { sql: string; params: SqlParams; page: Paging } {
  const page = paging(query, 'runs');
  const { conditions, params } = runConditions(query);
  if (page.after) {
    conditions.push('(r.created_at, r.run_id) < (@afterKey, @afterId)');
    params.afterKey = page.after.key;
    params.afterId = page.after.id;
  }
  params.limit = page.limit + 1;
  params.offset = page.offset;
  const chosen = `SELECT r.run_id, r.task_set, r.created_at, r.finished_at, r.planned, r.executed,
      r.stopped_early, r.config_hash, ${withKind ? 'r.kind' : "'run' AS kind"}, r.agents, r.counts, NULL AS summary
    FROM runs r ${whereOf(conditions, params).sql}
    ORDER BY r.created_at DESC, r.run_id DESC LIMIT @limit OFFSET @offset`;
  return { sql: withRecordedCounts(chosen, 'c.created_at DESC, c.run_id DESC', withTallies), params, page };
}

function toRunRow(r: RawRunRow): RunRow {
  return {
    runId: r.run_id,
    kind: (r.kind ?? 'run') as HistoryRunKind,
    taskSet: r.task_set,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
    planned: r.planned,
    executed: r.executed,
    stoppedEarly: r.stopped_early === 1,
    configHash: r.config_hash,
    agents: JSON.parse(r.agents) as string[],
    counts: r.counts === null ? null : (JSON.parse(r.counts) as VerdictCounts),
    recorded: JSON.parse(r.recorded) as RunRow['recorded'],
  };
}

function detailOf(row: RawRunRow | undefined): RunDetail | undefined {
  if (row === undefined) return undefined;
  return { ...toRunRow(row), stats: row.summary === null ? null : (JSON.parse(row.summary) as unknown) };
}

export function createRunReader(db: Db): RunReader {
  const withKind = hasKindColumn(db);
  const withTallies = hasTallies(db);
  const oneRun = db.prepare<[string], RawRunRow>(withRecordedCounts('SELECT * FROM runs WHERE run_id = ?', 'c.run_id', withTallies));
  const hasStatsHead = db.prepare("SELECT 1 FROM pragma_table_info('runs') WHERE name = 'stats_head'").get() !== undefined;
  const headColumns = `run_id, task_set, created_at, finished_at, planned, executed, stopped_early, config_hash, ${withKind ? 'kind' : "'run' AS kind"},
    agents, counts, ${hasStatsHead ? 'stats_head' : STATS_HEAD_SQL('summary')} AS summary`;
  const oneRunHead = db.prepare<[string], RawRunRow>(withRecordedCounts(`SELECT ${headColumns} FROM runs WHERE run_id = ?`, 'c.run_id', withTallies));
  const runHead = db.prepare<[string], { kind: string; finished_at: string | null }>(
    `SELECT ${withKind ? 'kind' : "'run' AS kind"}, finished_at FROM runs WHERE run_id = ?`,
  );
  const recordedCount = db
    .prepare<[string], number>(
      withTallies ? 'SELECT coalesce(sum(attempts), 0) FROM agent_tallies WHERE run_id = ?' : 'SELECT count(*) FROM attempts WHERE run_id = ?',
    )
    .pluck();

  return {
    listRuns(query) {
      const { sql, params, page } = listRunsQuery(query, withKind, withTallies);
      const rows = db.prepare<[SqlParams], RawRunRow>(sql).all(params);
      return toPage(rows, page, 'runs', (r) => ({ key: r.created_at, id: r.run_id }), toRunRow);
    },

    countRuns(filter = {}) {
      const { conditions, params } = runConditions(filter);
      const sql = `SELECT count(*) FROM runs r ${whereOf(conditions, params).sql}`;
      return Number(db.prepare<[SqlParams], number>(sql).pluck().get(params));
    },

    getRun: (runId) => detailOf(oneRun.get(runId)),
    getRunHead: (runId) => detailOf(oneRunHead.get(runId)),

    runVersion(runId) {
      const head = runHead.get(runId);
      if (head === undefined) return undefined;
      // A finished run changes only by finishing again (a resume clears finished_at first); a live
      // one with every attempt it records.
      const version = head.finished_at !== null ? `finished ${head.finished_at}` : `live ${recordedCount.get(runId) ?? 0}`;
      return { kind: head.kind as HistoryRunKind, version };
    },
  };
}
