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
import type { RunStats } from '../core/types/index.js';
import { recordedFailurePatterns } from '../domain/failures/index.js';
import { strengthOfRun } from '../features/strength/index.js';

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

export class RunViews {
  private readonly cache = new Map<string, { key: string; view: RunView }>();
  private readonly statsCache = new Map<string, { key: string; view: RunStatsView }>();

  constructor(
    private readonly history: HistoryReader,
    private readonly stateDir: string,
  ) {}

  get(runId: string): RunView | undefined {
    const head = this.history.runVersion(runId);
    if (!head) return undefined;
    const hit = this.cache.get(runId);
    if (hit && hit.key === head.version) return hit.view;
    const detail = this.history.getRun(runId);
    if (!detail) return undefined;
    const view = this.build(runId, detail.stats, runInfoOfRow(detail), join(runsDirOf(this.stateDir, detail.kind), runId));
    remember(this.cache, runId, { key: head.version, view });
    return view;
  }

  /**
   * A run's info and stats only, for comparisons: the stored stats need none of the attempt rows
   * a run page reads (held-out cards, guard), so a comparison of two uncached runs does not pay two
   * run pages. A run without stored stats gets its whole page built, which computes them.
   */
  stats(runId: string): RunStatsView | undefined {
    const head = this.history.runVersion(runId);
    if (!head) return undefined;
    const hit = this.statsCache.get(runId);
    if (hit && hit.key === head.version) return hit.view;
    const full = this.cache.get(runId);
    if (full && full.key === head.version) {
      remember(this.statsCache, runId, { key: head.version, view: full.view });
      return full.view;
    }
    const detail = this.history.getRun(runId);
    if (!detail) return undefined;
    const stats = storedStats(detail.stats) ?? summaryStats(join(runsDirOf(this.stateDir, detail.kind), runId));
    const view: RunStatsView | undefined = stats ? { run: runInfoOfRow(detail), stats } : this.get(runId);
    if (view) remember(this.statsCache, runId, { key: head.version, view });
    return view;
  }

  private build(runId: string, stored: unknown, run: RunInfo, dir: string): RunView {
    // The rows are read only for a run that ended without its stats or guard counts (killed, or
    // still running): a finished run's page reads its summary and the history's aggregates.
    let rows: AttemptRow[] | undefined;
    const rowsOf = (): AttemptRow[] => (rows ??= attemptRowsOf(this.history, runId, MAX_AGGREGATED_ATTEMPTS));
    const stats = storedStats(stored) ?? summaryStats(dir) ?? (rowsOf().length < MAX_AGGREGATED_ATTEMPTS ? statsOfRecordedRun(this.history, rowsOf()) : null);
    // A live guarded run past the cap shows no counts rather than counts of part of it.
    const guard = guardOfRecordedRun(dir, this.history, () => (rowsOf().length < MAX_AGGREGATED_ATTEMPTS ? rowsOf() : []));
    return {
      run,
      stats,
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
function remember<T>(cache: Map<string, T>, runId: string, entry: T): void {
  cache.delete(runId);
  cache.set(runId, entry);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
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
