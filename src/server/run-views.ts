import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { peekSummaryFile, runsDirOf } from '../run-dir/index.js';
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
} from '../report/index.js';
import type { HistoryReader } from '../store/index.js';
import type { RunStats } from '../types/index.js';
import { recordedFailurePatterns } from '../failures/index.js';

/** Attempts aggregated on the fly for a run whose stats were not stored; beyond this the page says so. */
export const MAX_AGGREGATED_ATTEMPTS = 50_000;
const CACHE_SIZE = 64;

/**
 * Run pages for the dashboard, cached per run until it records another attempt or finishes.
 * Stats come from the history (as the engine stored them), else from summary.json, else they are
 * computed from the recorded attempts as `crucible show` computes them (statsOfRecordedRun).
 */
export class RunViews {
  private readonly cache = new Map<string, { key: string; view: RunView }>();

  constructor(
    private readonly history: HistoryReader,
    private readonly stateDir: string,
  ) {}

  get(runId: string): RunView | undefined {
    const detail = this.history.getRun(runId);
    if (!detail) return undefined;
    const key = `${detail.finishedAt ?? ''}|${detail.recorded.attempts}`;
    const hit = this.cache.get(runId);
    if (hit && hit.key === key) return hit.view;
    const view = this.build(runId, detail.stats, runInfoOfRow(detail), join(runsDirOf(this.stateDir, detail.kind), runId));
    this.cache.delete(runId);
    this.cache.set(runId, { key, view });
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
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

/** summary.json's failure patterns (written when the run ended; a live run has none yet). */
function failurePatternsOf(dir: string): Pick<RunView, 'failurePatterns'> {
  const failurePatterns = recordedFailurePatterns(dir);
  return failurePatterns ? { failurePatterns } : {};
}

function summaryStats(dir: string): RunStats | null {
  const summary = peekSummaryFile(dir);
  return summary ? storedStats(summary.stats) : null;
}
