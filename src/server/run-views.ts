import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { peekSummaryFile, runsDirOf } from '../domain/run-dir/index.js';
import {
  attemptRowsOf,
  guardOfRecordedRun,
  REPORT_FILES,
  runInfoOfRow,
  statsOfRecordedRun,
  storedStats,
  type RunInfo,
  type RunView,
} from '../features/report/index.js';
import type { AttemptRow, HistoryReader } from '../infra/store/index.js';
import type { AgentFailurePatterns, CellStats, RunStats } from '../core/types/index.js';
import { recordedFailurePatterns } from '../domain/failures/index.js';
import { strengthOfRun } from '../features/strength/index.js';

/** Tasks a run page lists for its attempts filter; a larger run's filter takes a typed task id. */
export const MAX_TASK_OPTIONS = 500;

/** Attempts aggregated on the fly for a run whose stats were not stored; beyond this the page says so. */
export const MAX_AGGREGATED_ATTEMPTS = 50_000;
const CACHE_SIZE = 64;

/**
 * Run pages for the dashboard, cached per run until it records another attempt or finishes (the
 * history's runVersion, which reads neither the stats nor a finished run's attempts).
 * Stats come from the history (as the engine stored them), else from summary.json, else they are
 * computed from the recorded attempts as `crucible show` computes them (statsOfRecordedRun).
 */
/** What a comparison of two runs reads of each: no attempt rows, guard or failure patterns. */
export type RunStatsView = Pick<RunView, 'run' | 'stats'>;

/** Runs whose whole failure-pattern table (every attempt id) the server keeps, for paging the ids. */
const PATTERN_TABLES_KEPT = 2;

export class RunViews {
  private readonly cache = new Map<string, { key: string; view: RunView }>();
  private readonly patternTables = new Map<string, { key: string; table: AgentFailurePatterns[] }>();

  constructor(
    private readonly history: HistoryReader,
    private readonly stateDir: string,
  ) {}

  get(runId: string): RunView | undefined {
    const head = this.history.runVersion(runId);
    if (!head) return undefined;
    const hit = this.cache.get(runId);
    if (hit && hit.key === head.version) return hit.view;
    const detail = this.history.getRunHead(runId);
    if (!detail) return undefined;
    const view = this.build(runId, detail.stats, runInfoOfRow(detail), join(runsDirOf(this.stateDir, detail.kind), runId));
    remember(this.cache, runId, { key: head.version, view });
    return view;
  }

  /**
   * The attempt ids of one agent's failure pattern from `offset`, at most `limit`: the run page lists
   * the first PATTERN_IDS_SHOWN of each. Undefined for an unknown run, agent or pattern.
   */
  patternIds(runId: string, agent: string, patternId: string, offset: number, limit: number): { ids: string[]; count: number } | undefined {
    const head = this.history.runVersion(runId);
    if (!head) return undefined;
    let hit = this.patternTables.get(runId);
    if (!hit || hit.key !== head.version) {
      const table = recordedFailurePatterns(join(runsDirOf(this.stateDir, head.kind), runId)) ?? [];
      remember(this.patternTables, runId, (hit = { key: head.version, table }), PATTERN_TABLES_KEPT);
    }
    const pattern = hit.table.find((a) => a.agent === agent)?.patterns.find((p) => p.id === patternId);
    return pattern ? { ids: pattern.attemptIds.slice(offset, offset + limit), count: pattern.attemptIds.length } : undefined;
  }

  /** What a view of the run is keyed by: changes when the run records an attempt or finishes. */
  version(runId: string): string | undefined {
    return this.history.runVersion(runId)?.version;
  }

  /**
   * A run's info and stats with every cell, for a comparison: its page's statistics (no cells, as
   * the page sends them) with the cells from the history's tallies, a row per agent and task.
   * Not cached: the comparison made of it is.
   */
  stats(runId: string): RunStatsView | undefined {
    const view = this.get(runId);
    if (!view) return undefined;
    if (!view.stats) return view;
    const cells: CellStats[] = this.history.cells(runId).map((c) => ({
      agent: c.agent,
      taskId: c.taskId,
      repo: '',
      attempts: c.n + c.errors,
      harnessErrors: c.errors,
      n: c.n,
      passes: c.passes,
      interval: null,
    }));
    return { run: view.run, stats: { ...view.stats, cells } };
  }

  private build(runId: string, stored: unknown, run: RunInfo, dir: string): RunView {
    // The rows are read only for a run that ended without its stats or guard counts (killed, or
    // still running): a finished run's page reads its summary and the history's aggregates.
    let rows: AttemptRow[] | undefined;
    const rowsOf = (): AttemptRow[] => (rows ??= attemptRowsOf(this.history, runId, MAX_AGGREGATED_ATTEMPTS));
    const stats = storedStats(stored) ?? summaryStats(dir) ?? (rowsOf().length < MAX_AGGREGATED_ATTEMPTS ? statsOfRecordedRun(this.history, rowsOf()) : null);
    // Cells are sent a page of tasks at a time (/api/runs/:id/cells), from the history's tallies.
    const tasks = this.history.runTasks(runId, MAX_TASK_OPTIONS + 1);
    // A live guarded run past the cap shows no counts rather than counts of part of it.
    const guard = guardOfRecordedRun(dir, this.history, () => (rowsOf().length < MAX_AGGREGATED_ATTEMPTS ? rowsOf() : []));
    return {
      run,
      stats: stats && { ...stats, cells: [] },
      cellsPaged: true,
      tasks: tasks.slice(0, MAX_TASK_OPTIONS),
      ...(tasks.length > MAX_TASK_OPTIONS ? { tasksTruncated: true } : {}),
      heldOut: this.history.heldOut(runId),
      attemptsTotal: this.history.countAttempts({ runId }),
      reports: Object.values(REPORT_FILES).filter((f) => existsSync(join(dir, f))),
      ...(guard ? { guard } : {}),
      ...failurePatternsOf(dir),
      // The strength the run was graded beside (its strength.json), and its PASSes resembling a surviving mutant.
      ...strengthOfRun(dir, rowsOf),
    };
  }
}

/** Least recently built last out: a run looked at again moves to the back. */
function remember<T>(cache: Map<string, T>, runId: string, entry: T, size = CACHE_SIZE): void {
  cache.delete(runId);
  cache.set(runId, entry);
  if (cache.size > size) cache.delete(cache.keys().next().value as string);
}

/** Attempt ids a run page lists per failure pattern; `count` still says how many show it. */
export const PATTERN_IDS_SHOWN = 20;

/**
 * summary.json's failure patterns (written when the run ended; a live run has none yet), each
 * pattern's ids cut to the first PATTERN_IDS_SHOWN: a run of 100 000 attempts lists tens of
 * thousands per pattern, which no page shows and every page load would carry.
 */
function failurePatternsOf(dir: string): Pick<RunView, 'failurePatterns'> {
  const failurePatterns = recordedFailurePatterns(dir);
  if (!failurePatterns) return {};
  return {
    failurePatterns: failurePatterns.map((a) => ({ ...a, patterns: a.patterns.map((p) => ({ ...p, attemptIds: p.attemptIds.slice(0, PATTERN_IDS_SHOWN) })) })),
  };
}

function summaryStats(dir: string): RunStats | null {
  const summary = peekSummaryFile(dir);
  return summary ? storedStats(summary.stats) : null;
}
