import type { AttemptResult, CheckResult, Severity } from '../../core/types/index.js';
import { attemptConditions, whereOf, type SqlParams } from './attempt-filter.js';
import { ATTEMPT_ROW_SELECT, toAttemptRow, type RawAttemptRow } from './attempt-row.js';
import type { Db } from './connection.js';
import { paging, toPage, type CursorOrder, type Paging } from './page.js';
import type { AttemptFilter, Page, PageRequest } from './queries.js';
import type { AttemptDetail, AttemptRow } from './rows.js';
import { hasTallies } from './tallies.js';

export interface AttemptReader {
  listAttempts(query: AttemptFilter & PageRequest): Page<AttemptRow>;
  countAttempts(filter?: AttemptFilter): number;
  getAttempt(attemptId: string): AttemptDetail | undefined;
}

interface PreparedQuery {
  sql: string;
  params: SqlParams;
}

/** Newest first across history; plan order inside one run, which is how a run reads. */
export function listAttemptsQuery(query: AttemptFilter & PageRequest): PreparedQuery & { order: CursorOrder; page: Paging } {
  const inPlanOrder = query.runId !== undefined;
  const order: CursorOrder = inPlanOrder ? 'attempts-plan' : 'attempts-newest';
  const page = paging(query, order);
  const { conditions, params } = attemptConditions(query);
  if (page.after) {
    conditions.push(inPlanOrder ? '(a.plan_index, a.attempt_id) > (@afterKey, @afterId)' : '(a.finished_at, a.attempt_id) < (@afterKey, @afterId)');
    params.afterKey = page.after.key;
    params.afterId = page.after.id;
  }
  const orderBy = inPlanOrder ? 'a.plan_index, a.attempt_id' : 'a.finished_at DESC, a.attempt_id DESC';
  params.limit = page.limit + 1;
  params.offset = page.offset;
  const where = whereOf(conditions, params);
  return { sql: `${ATTEMPT_ROW_SELECT} ${where.sql} ORDER BY ${orderBy} LIMIT @limit OFFSET @offset`, params, order, page };
}

export function countAttemptsQuery(filter: AttemptFilter): PreparedQuery {
  const { conditions, params } = attemptConditions(filter);
  const where = whereOf(conditions, params);
  return { sql: `SELECT count(*) FROM attempts a ${where.sql}`, params };
}

interface RawCheck {
  check_id: string;
  passed: number;
  severity: string;
  message: string;
  evidence: string;
}

export function createAttemptReader(db: Db): AttemptReader {
  const rowById = db.prepare<[string], RawAttemptRow>(`${ATTEMPT_ROW_SELECT} WHERE a.attempt_id = ?`);
  const documentById = db.prepare<[string], string>('SELECT json FROM attempt_documents WHERE attempt_id = ?').pluck();
  const recordedOfRun = hasTallies(db) ? db.prepare<[string], number>('SELECT coalesce(sum(attempts), 0) FROM agent_tallies WHERE run_id = ?').pluck() : null;
  const checksById = db.prepare<[string], RawCheck>('SELECT check_id, passed, severity, message, evidence FROM checks WHERE attempt_id = ? ORDER BY position');

  return {
    listAttempts(query) {
      const { sql, params, order, page } = listAttemptsQuery(query);
      const rows = db.prepare<[SqlParams], RawAttemptRow>(sql).all(params);
      return toPage(
        rows,
        page,
        order,
        (r) => (order === 'attempts-plan' ? { key: r.plan_index, id: r.attempt_id } : { key: r.finished_at, id: r.attempt_id }),
        toAttemptRow,
      );
    },

    countAttempts(filter = {}) {
      // A whole run's count is its tallies' (schema v6): a row per agent and day, not per attempt.
      const onlyRun = filter.runId !== undefined && Object.entries(filter).every(([k, v]) => k === 'runId' || v === undefined);
      if (onlyRun && recordedOfRun) return Number(recordedOfRun.get(filter.runId as string) ?? 0);
      const { sql, params } = countAttemptsQuery(filter);
      return Number(db.prepare<[SqlParams], number>(sql).pluck().get(params));
    },

    getAttempt(attemptId) {
      // One read transaction, so the row, document and checks come from the same snapshot.
      return db.transaction(() => {
        const row = rowById.get(attemptId);
        const json = documentById.get(attemptId);
        if (row === undefined || json === undefined) return undefined;
        const checks: CheckResult[] = checksById.all(attemptId).map((c) => ({
          id: c.check_id,
          passed: c.passed === 1,
          severity: c.severity as Severity,
          message: c.message,
          evidence: JSON.parse(c.evidence) as Record<string, unknown>,
        }));
        return { ...toAttemptRow(row), attempt: JSON.parse(json) as AttemptResult, checks };
      })();
    },
  };
}
