import type {
  AttemptQuery,
  AttemptListItem,
  AttemptView,
  CellView,
  CompareView,
  DiagnosticListItem,
  EvaluationKind,
  EvaluationListItem,
  Page,
  RunListItem,
  RunView,
  TrendView,
} from './types.js';

export interface RunsQuery {
  agent?: string;
  since?: string;
  cursor?: string;
  limit?: number;
}

export interface TrendsQuery {
  bucket: 'day' | 'run';
  agent?: string;
  taskId?: string;
  perTask?: boolean;
  limit?: number;
}

/**
 * Where pages get their data: the dashboard API, or the report data inlined in a single HTML file.
 * Pages never know which; the static source simply lacks history (runs list, compare, trends).
 */
export interface DataSource {
  readonly mode: 'api' | 'static';
  listRuns(q: RunsQuery): Promise<Page<RunListItem>>;
  getRun(runId: string): Promise<RunView>;
  listAttempts(runId: string, q: AttemptQuery): Promise<Page<AttemptListItem>>;
  getAttempt(attemptId: string): Promise<AttemptView>;
  /** A run's heatmap cells, a page of tasks at a time (every agent of each task), in task order. */
  listCells(runId: string, q: { cursor?: string; limit?: number }): Promise<Page<CellView>>;
  /** One agent's failure pattern in a run: its attempt ids, a page at a time. */
  listPatternIds(runId: string, agent: string, patternId: string, q: { cursor?: string; limit?: number }): Promise<Page<string>>;
  compare(a: string, b: string): Promise<CompareView>;
  trends(q: TrendsQuery): Promise<TrendView>;
  /** `crucible ci` and `crucible gate` results, newest first (none in a single-run report). */
  listEvaluations(q: { kind?: EvaluationKind; limit?: number }): Promise<{ items: EvaluationListItem[] }>;
  /** `crucible diagnostics` reports, newest first (none in a single-run report). */
  listDiagnostics(): Promise<{ items: DiagnosticListItem[] }>;
  /** Link to a diagnostics report file, when the source can serve one. */
  diagnosticUrl(item: DiagnosticListItem, file: 'report.md' | 'report.json'): string | null;
  /** Link to a file in the run directory, when the source can serve one. */
  fileUrl(runId: string, path: string): string | null;
}
