import type { AttemptResult } from '../../core/types/index.js';
import { createAggregates } from './aggregates.js';
import { openConnection, type Db } from './connection.js';
import { assertReadableSchema, migrate } from './migrations.js';
import type { AttemptFilter, Page, PageRequest, RunFilter, TrendQuery } from './queries.js';
import { createAttemptReader } from './read-attempts.js';
import { createRunReader, type RunVersion } from './read-runs.js';
import { createIdResolver } from './resolve-id.js';
import { isBusyError } from './retry.js';
import type {
  AttemptDetail,
  AttemptEntry,
  AttemptExtra,
  AttemptRow,
  CellRow,
  HeldOutTally,
  ResolvedId,
  RunDetail,
  RunFinish,
  RunMeta,
  RunRow,
  TrendPoint,
} from './rows.js';
import { createEvaluationReader, createEvaluationWriter, type EvaluationFilter, type EvaluationRecord } from './evaluations.js';
import { createAttemptWriter } from './write-attempt.js';
import { createRunWriter } from './write-run.js';

/** Everything a read-only opener (dashboard, `crucible history`) may do. */
export interface HistoryReader {
  readonly path: string;
  listRuns(query: RunFilter & PageRequest): Page<RunRow>;
  countRuns(filter?: RunFilter): number;
  getRun(runId: string): RunDetail | undefined;
  /** getRun with the statistics' `cells` left empty (read them with cellPage or cells). */
  getRunHead(runId: string): RunDetail | undefined;
  /** A run's kind and a version that changes when getRun's answer does; reads no statistics. */
  runVersion(runId: string): RunVersion | undefined;
  listAttempts(query: AttemptFilter & PageRequest): Page<AttemptRow>;
  countAttempts(filter?: AttemptFilter): number;
  getAttempt(attemptId: string): AttemptDetail | undefined;
  /** Undefined when nothing matches; throws AmbiguousIdError when several ids do. */
  resolveId(prefix: string): ResolvedId | undefined;
  trends(query: TrendQuery): TrendPoint[];
  cells(runId: string): CellRow[];
  /** A run's cells a page of tasks at a time, every agent of each task, in task order. */
  cellPage(runId: string, request: PageRequest): Page<CellRow>;
  /** A run's task ids in order, at most `limit`. */
  runTasks(runId: string, limit: number): string[];
  /** Per agent, the run's attempts whose held-out tests ran and how they went. */
  heldOut(runId: string): HeldOutTally[];
  /** `crucible ci` and `crucible gate` results, newest first. */
  listEvaluations(filter?: EvaluationFilter): EvaluationRecord[];
  close(): void;
}

export interface History extends HistoryReader {
  /** Upsert: a resumed run records itself again. */
  recordRun(meta: RunMeta): void;
  /** Idempotent: the same attempt recorded twice is one row, with its checks and usage replaced. */
  recordAttempt(runId: string, attempt: AttemptResult, extra?: AttemptExtra): void;
  /** Several attempts of one run in one transaction (imports, rebuilding history from disk). */
  recordAttempts(runId: string, entries: Iterable<AttemptEntry>): void;
  /** Removes attempts a resumed run no longer plans (forced resume after a change); returns how many. */
  deleteAttempts(runId: string, attemptIds: readonly string[]): number;
  finishRun(runId: string, finish: RunFinish): void;
  /** Upsert by id. */
  recordEvaluation(record: EvaluationRecord): void;
}

/** SQLite advises `PRAGMA optimize` before closing; it is cheap and keeps index choices good. */
function refreshPlannerStatistics(db: Db): void {
  try {
    db.pragma('optimize');
  } catch (error) {
    // Another process holding the write lock is no reason to fail a close; it will optimize later.
    if (!isBusyError(error)) throw error;
  }
}

export interface OpenOptions {
  readonly?: boolean;
}

/**
 * Opens (creating and migrating if needed) the history file. Read-only opening needs an existing
 * file at the current schema. Either way a file from a newer Crucible is refused (HistoryVersionError).
 */
export function openHistory(path: string, opts: { readonly: true }): HistoryReader;
export function openHistory(path: string, opts?: { readonly?: false }): History;
/** When read-only is decided at run time, only reading is safe to promise. */
export function openHistory(path: string, opts?: OpenOptions): HistoryReader;
export function openHistory(path: string, opts: OpenOptions = {}): History | HistoryReader {
  const readonly = opts.readonly === true;
  const db = openConnection(path, readonly);
  try {
    if (readonly) assertReadableSchema(db, path);
    else migrate(db, path);
  } catch (error) {
    db.close();
    throw error;
  }
  const reader: HistoryReader = {
    path,
    ...createRunReader(db),
    ...createAttemptReader(db),
    ...createIdResolver(db),
    ...createAggregates(db),
    ...createEvaluationReader(db),
    close() {
      if (!db.open) return;
      if (!readonly) refreshPlannerStatistics(db);
      db.close();
    },
  };
  if (readonly) return reader;
  return { ...reader, ...createRunWriter(db), ...createAttemptWriter(db), ...createEvaluationWriter(db) };
}
