import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { aggregateRun, type RunStats } from '../engine/aggregate.js';
import { heldOutCards, REPORT_FILES, type RunInfo, type RunListItem, type RunView } from '../report/index.js';
import type { AttemptRow, HistoryReader, RunRow } from '../store/index.js';
import type { AttemptResult } from '../types/index.js';

/** Attempts aggregated on the fly for a run whose stats were not stored; beyond this the page says so. */
export const MAX_AGGREGATED_ATTEMPTS = 50_000;
const PAGE = 1000;
const CACHE_SIZE = 64;

export function runInfoOfRow(r: RunRow): RunInfo {
  const { attempts: _attempts, ...recorded } = r.recorded;
  return {
    runId: r.runId,
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
  return o.schemaVersion === 1 && Array.isArray(o.agents) && Array.isArray(o.cells) && Array.isArray(o.comparisons) && Array.isArray(o.notes);
}

/** The engine stores RunStats itself, or a wrapper holding it under `stats`; either is accepted. */
export function storedStats(v: unknown): RunStats | null {
  if (isRunStats(v)) return v;
  if (typeof v === 'object' && v !== null && isRunStats((v as { stats?: unknown }).stats)) return (v as { stats: RunStats }).stats;
  return null;
}

/** Enough of an AttemptResult for aggregation, rebuilt from the indexed row (no attempt.json reads). */
export function attemptOfRow(r: AttemptRow): AttemptResult {
  return {
    attemptId: r.attemptId,
    runId: r.runId,
    taskId: r.taskId,
    taskVersion: r.taskVersion,
    agent: r.agent,
    trial: r.trial,
    index: r.planIndex,
    schemaVersion: 1,
    verdict: r.verdict,
    cause: r.cause,
    message: r.message,
    ...(r.score !== null ? { score: r.score } : {}),
    sandbox: r.sandbox,
    checks: [],
    timings: { prepareMs: r.prepareMs, agentMs: r.agentMs, verifyMs: r.verifyMs, totalMs: r.totalMs },
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    ...(r.stopReason !== null
      ? {
          agentResult: {
            stopReason: r.stopReason,
            ...(r.usage ? { usage: { ...r.usage, costUsd: r.usage.costUsd ?? undefined } } : {}),
            ...(r.turns !== null ? { turns: r.turns } : {}),
            ...(r.toolCalls !== null ? { toolCalls: r.toolCalls } : {}),
          },
        }
      : {}),
  };
}

/**
 * Run pages for the dashboard, cached per run until it records another attempt or finishes.
 * Stats come from the history (as the engine stored them), else from summary.json, else they are
 * aggregated from the run's indexed rows, page by page.
 */
export class RunViews {
  private readonly cache = new Map<string, { key: string; view: RunView }>();

  constructor(
    private readonly history: HistoryReader,
    private readonly runsDir: string,
  ) {}

  get(runId: string): RunView | undefined {
    const detail = this.history.getRun(runId);
    if (!detail) return undefined;
    const key = `${detail.finishedAt ?? ''}|${detail.recorded.attempts}`;
    const hit = this.cache.get(runId);
    if (hit && hit.key === key) return hit.view;
    const view = this.build(runId, detail.stats, runInfoOfRow(detail));
    this.cache.delete(runId);
    this.cache.set(runId, { key, view });
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    return view;
  }

  private build(runId: string, stored: unknown, run: RunInfo): RunView {
    const rows: AttemptRow[] = [];
    let cursor: string | undefined;
    do {
      const page = this.history.listAttempts({ runId, limit: PAGE, ...(cursor ? { cursor } : {}) });
      rows.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor && rows.length < MAX_AGGREGATED_ATTEMPTS);
    const stats =
      storedStats(stored) ??
      this.summaryStats(runId) ??
      (rows.length > 0 && rows.length < MAX_AGGREGATED_ATTEMPTS ? aggregateRun(rows.map(attemptOfRow)) : null);
    const dir = join(this.runsDir, runId);
    return {
      run,
      stats,
      heldOut: heldOutCards(rows.map((r) => ({ agent: r.agent, heldOut: r.heldOut, cause: r.cause }))),
      attemptsTotal: this.history.countAttempts({ runId }),
      reports: Object.values(REPORT_FILES).filter((f) => existsSync(join(dir, f))),
    };
  }

  private summaryStats(runId: string): RunStats | null {
    try {
      const summary = JSON.parse(readFileSync(join(this.runsDir, runId, 'summary.json'), 'utf8')) as { stats?: unknown };
      return storedStats(summary.stats);
    } catch {
      return null;
    }
  }
}
