import type { Db } from './connection.js';
import { HistoryError } from './errors.js';
import { MAX_PAGE_SIZE } from './page.js';
import { withBusyRetry } from './retry.js';
import { toStoredTimestamp } from './time.js';

/**
 * Evaluations that are not runs of the agent loop but verdicts about one: `crucible ci` (a change
 * in a checkout, graded like an attempt) and `crucible gate` (a run compared with a baseline).
 * The history keeps them next to runs so `history` and the dashboard can list and filter them.
 */
export type EvaluationKind = 'ci' | 'gate';

export const EVALUATION_KINDS: readonly EvaluationKind[] = ['ci', 'gate'];

export interface EvaluationRecord {
  /** `ci-<…>` or `gate-<…>`; unique. */
  id: string;
  kind: EvaluationKind;
  /** ISO time it finished. */
  createdAt: string;
  /** ERROR: no verdict on the change (ci only; schema v4). */
  verdict: 'PASS' | 'FAIL' | 'ERROR';
  /** One line: what was evaluated and why it passed or failed. */
  title: string;
  /** The run a gate judged (absent for ci). */
  runId?: string;
  /** Directory of its reports (absolute on this machine). */
  reportDir: string;
  /** The kind's own JSON (gate.json, ci.json), for the dashboard. */
  detail: Record<string, unknown>;
}

/** A listing's row (server `/api/evaluations`, `history --evaluations --json`): no kind-specific JSON. */
export type EvaluationListItem = Omit<EvaluationRecord, 'detail'>;

export interface EvaluationFilter {
  kind?: EvaluationKind;
  /** Newest first; default 50. */
  limit?: number;
}

const DEFAULT_LIMIT = 50;

interface EvaluationDbRow {
  id: string;
  kind: string;
  created_at: string;
  verdict: string;
  title: string;
  run_id: string | null;
  report_dir: string;
  detail: string;
}

function toRecord(row: EvaluationDbRow): EvaluationRecord {
  const record: EvaluationRecord = {
    id: row.id,
    kind: row.kind as EvaluationKind,
    createdAt: row.created_at,
    verdict: row.verdict as EvaluationRecord['verdict'],
    title: row.title,
    reportDir: row.report_dir,
    detail: JSON.parse(row.detail) as Record<string, unknown>,
  };
  if (row.run_id !== null) record.runId = row.run_id;
  return record;
}

function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new HistoryError(`limit must be an integer from 1 to ${MAX_PAGE_SIZE}, got ${limit}`);
  }
  return limit;
}

/** Writer half: upsert by id, so re-recording an evaluation (a retried gate) replaces it. */
export function createEvaluationWriter(db: Db): { recordEvaluation(record: EvaluationRecord): void } {
  const upsert = db.prepare(`
    INSERT INTO evaluations (id, kind, created_at, verdict, title, run_id, report_dir, detail)
    VALUES (@id, @kind, @createdAt, @verdict, @title, @runId, @reportDir, @detail)
    ON CONFLICT (id) DO UPDATE SET
      kind = excluded.kind, created_at = excluded.created_at, verdict = excluded.verdict,
      title = excluded.title, run_id = excluded.run_id, report_dir = excluded.report_dir,
      detail = excluded.detail`);
  return {
    recordEvaluation(record) {
      if (!EVALUATION_KINDS.includes(record.kind)) throw new HistoryError(`evaluation kind must be ci or gate, got '${String(record.kind)}'`);
      const params = {
        id: record.id,
        kind: record.kind,
        createdAt: toStoredTimestamp(record.createdAt, 'createdAt'),
        verdict: record.verdict,
        title: record.title,
        runId: record.runId ?? null,
        reportDir: record.reportDir,
        detail: JSON.stringify(record.detail),
      };
      withBusyRetry(() => upsert.run(params));
    },
  };
}

function hasEvaluationsTable(db: Db): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'evaluations'`).get() !== undefined;
}

/** Reader half. A read-only opener of a v1 file has no table yet: it lists nothing rather than failing. */
export function createEvaluationReader(db: Db): { listEvaluations(filter?: EvaluationFilter): EvaluationRecord[] } {
  return {
    listEvaluations(filter = {}) {
      const limit = checkLimit(filter.limit);
      if (filter.kind !== undefined && !EVALUATION_KINDS.includes(filter.kind)) {
        throw new HistoryError(`evaluation kind must be ci or gate, got '${String(filter.kind)}'`);
      }
      if (!hasEvaluationsTable(db)) return [];
      const where = filter.kind === undefined ? '' : 'WHERE kind = @kind';
      const rows = db
        .prepare(`SELECT * FROM evaluations ${where} ORDER BY created_at DESC, id DESC LIMIT @limit`)
        .all({ limit, ...(filter.kind === undefined ? {} : { kind: filter.kind }) }) as EvaluationDbRow[];
      return rows.map(toRecord);
    },
  };
}
