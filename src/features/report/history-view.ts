import { aggregateRun, taskSetsOfIds } from '../../domain/stats/index.js';
import { RUN_STATS_SCHEMA_VERSION, type AttemptResult, type RunStats } from '../../core/types/index.js';
import { MAX_PAGE_SIZE, type AttemptRow, type HistoryReader, type RunRow } from '../../infra/store/index.js';
import type { RunInfo, RunListItem } from './view.js';

/*
 * A run as the history holds it, turned into the views `crucible show` and the dashboard share: one
 * mapping of rows, one way to get a run's statistics.
 */

export function runInfoOfRow(r: RunRow): RunInfo {
  const { attempts: _attempts, ...recorded } = r.recorded;
  return {
    runId: r.runId,
    ...(r.kind === 'validate' ? { kind: r.kind } : {}),
    taskSet: r.taskSet,
    createdAt: r.createdAt,
    finishedAt: r.finishedAt,
    planned: r.planned,
    executed: r.finishedAt === null ? r.recorded.attempts : r.executed,
    stoppedEarly: r.stoppedEarly,
    counts: r.counts ?? recorded,
    agents: r.agents,
  };
}

export function runListItemOf(r: RunRow): RunListItem {
  return { ...runInfoOfRow(r), attempts: r.recorded.attempts, live: r.finishedAt === null };
}

function isRunStats(v: unknown): v is RunStats {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    o.schemaVersion === RUN_STATS_SCHEMA_VERSION && Array.isArray(o.agents) && Array.isArray(o.cells) && Array.isArray(o.comparisons) && Array.isArray(o.notes)
  );
}

/** The engine stores RunStats itself, or a wrapper holding it under `stats`; either is accepted. */
export function storedStats(v: unknown): RunStats | null {
  if (isRunStats(v)) return v;
  if (typeof v === 'object' && v !== null && isRunStats((v as { stats?: unknown }).stats)) return (v as { stats: RunStats }).stats;
  return null;
}

/** A run's attempt rows in plan order, at most `max` of them. */
export function attemptRowsOf(reader: HistoryReader, runId: string, max = Number.POSITIVE_INFINITY): AttemptRow[] {
  const rows: AttemptRow[] = [];
  let cursor: string | undefined;
  do {
    const page = reader.listAttempts({ runId, limit: MAX_PAGE_SIZE, ...(cursor ? { cursor } : {}) });
    rows.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && rows.length < max);
  return rows;
}

/**
 * Statistics of a run whose stats were not stored (it was killed before it finished), computed as the
 * engine computes them at the end of a run: from the recorded attempt documents (the index rows lack
 * checks and held-out results), with the repo keys the run recorded per task, and the default k rule
 * and seed of aggregateRun. So `show`, the dashboard and a finished run give the same numbers.
 */
export function statsOfRecordedRun(reader: HistoryReader, rows: readonly AttemptRow[]): RunStats | null {
  if (rows.length === 0) return null;
  const attempts: AttemptResult[] = rows.flatMap((r) => reader.getAttempt(r.attemptId)?.attempt ?? []);
  const taskSet = taskSetsOfIds(attempts.map((a) => a.taskId));
  return aggregateRun(attempts, { taskRepo: taskRepoOfRows(rows), ...(taskSet ? { taskSet } : {}) });
}

/** The repo key each task was recorded with; tasks recorded without one are profiled as unassigned. */
export function taskRepoOfRows(rows: readonly Pick<AttemptRow, 'taskId' | 'repoKey'>[]): Map<string, string> {
  return new Map(rows.flatMap((r) => (r.repoKey ? [[r.taskId, r.repoKey] as const] : [])));
}
