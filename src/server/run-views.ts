import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { peekSummaryFile, runsDirOf } from '../domain/run-dir/index.js';
import {
  attemptRowsOf,
  guardOfRecordedRun,
  heldOutCards,
  REPORT_FILES,
  runInfoOfRow,
  statsOfRecordedRun,
  storedStats,
  type RunInfo,
  type RunView,
} from '../features/report/index.js';
import type { HistoryReader } from '../infra/store/index.js';
import type { RunStats } from '../core/types/index.js';
import { recordedFailurePatterns } from '../domain/failures/index.js';

/** Attempts aggregated on the fly for a run whose stats were not stored; beyond this the page says so. */
export const MAX_AGGREGATED_ATTEMPTS = 50_000;
const CACHE_SIZE = 64;

/**
 * Run pages for the dashboard, cached per run until it records another attempt or finishes.
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
    const detail = this.history.getRun(runId);
    if (!detail) return undefined;
    const key = keyOf(detail);
    const hit = this.cache.get(runId);
    if (hit && hit.key === key) return hit.view;
    const view = this.build(runId, detail.stats, runInfoOfRow(detail), join(runsDirOf(this.stateDir, detail.kind), runId));
    remember(this.cache, runId, { key, view });
    return view;
  }

  /**
   * A run's info and stats only, for comparisons: the stored stats need none of the attempt rows
   * a run page reads (held-out cards, guard), so a comparison of two uncached runs does not pay two
   * run pages. A run without stored stats gets its whole page built, which computes them.
   */
  stats(runId: string): RunStatsView | undefined {
    const detail = this.history.getRun(runId);
    if (!detail) return undefined;
    const key = keyOf(detail);
    const hit = this.statsCache.get(runId);
    if (hit && hit.key === key) return hit.view;
    const full = this.cache.get(runId);
    const stats = full && full.key === key ? null : (storedStats(detail.stats) ?? summaryStats(join(runsDirOf(this.stateDir, detail.kind), runId)));
    const view: RunStatsView | undefined = stats ? { run: runInfoOfRow(detail), stats } : this.get(runId);
    if (view) remember(this.statsCache, runId, { key, view });
    return view;
  }

  private build(runId: string, stored: unknown, run: RunInfo, dir: string): RunView {
    const rows = attemptRowsOf(this.history, runId, MAX_AGGREGATED_ATTEMPTS);
    const stats = storedStats(stored) ?? summaryStats(dir) ?? (rows.length < MAX_AGGREGATED_ATTEMPTS ? statsOfRecordedRun(this.history, rows) : null);
    // A live guarded run past the cap shows no counts rather than counts of part of it.
    const guard = guardOfRecordedRun(dir, this.history, rows.length < MAX_AGGREGATED_ATTEMPTS ? rows : []);
    return {
      run,
      stats,
      heldOut: heldOutCards(rows.map((r) => ({ agent: r.agent, heldOut: r.heldOut, cause: r.cause }))),
      attemptsTotal: this.history.countAttempts({ runId }),
      reports: Object.values(REPORT_FILES).filter((f) => existsSync(join(dir, f))),
      ...(guard ? { guard } : {}),
      ...failurePatternsOf(dir),
    };
  }
}

/** Changes whenever the run records another attempt or finishes. */
function keyOf(detail: { finishedAt?: string | null; recorded: { attempts: number } }): string {
  return `${detail.finishedAt ?? ''}|${detail.recorded.attempts}`;
}

/** Least recently built last out: a run looked at again moves to the back. */
function remember<T>(cache: Map<string, T>, runId: string, entry: T): void {
  cache.delete(runId);
  cache.set(runId, entry);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
}

/** summary.json's failure patterns (written when the run ended; a live run has none yet). */
function failurePatternsOf(dir: string): Pick<RunView, 'failurePatterns'> {
  const failurePatterns = recordedFailurePatterns(dir);
  return failurePatterns ? { failurePatterns } : {};
}

function summaryStats(dir: string): RunStats | null {
  const summary = peekSummaryFile(dir);
  return summary ? storedStats(summary.stats) : null;
}
