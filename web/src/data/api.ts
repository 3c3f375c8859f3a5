import type { DataSource, RunsQuery, TrendsQuery } from './source.js';
import type {
  AttemptListItem,
  AttemptQuery,
  AttemptView,
  CellView,
  CompareView,
  DiagnosticListItem,
  EvaluationListItem,
  Page,
  RunListItem,
  RunView,
  TrendView,
} from './types.js';

function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '' && v !== false) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

async function get<T>(path: string): Promise<T> {
  const res = await fetch(`api/${path}`, { headers: { accept: 'application/json' } });
  const body = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) {
    const message = typeof body === 'object' && body !== null && 'error' in body ? String((body as { error: unknown }).error) : res.statusText;
    throw new Error(message);
  }
  return body as T;
}

const seg = encodeURIComponent;

export function apiSource(): DataSource {
  return {
    mode: 'api',
    listRuns: (q: RunsQuery) => get<Page<RunListItem>>(`runs${query({ ...q })}`),
    getRun: (runId) => get<RunView>(`runs/${seg(runId)}`),
    listAttempts: (runId, q: AttemptQuery) => get<Page<AttemptListItem>>(`runs/${seg(runId)}/attempts${query({ ...q })}`),
    getAttempt: (attemptId) => get<AttemptView>(`attempts/${seg(attemptId)}`),
    listPatternIds: (runId, agent, patternId, q) => get<Page<string>>(`runs/${seg(runId)}/failure-patterns/${seg(agent)}/${seg(patternId)}${query({ ...q })}`),
    listCells: (runId, q) => get<Page<CellView>>(`runs/${seg(runId)}/cells${query({ ...q })}`),
    compare: (a, b) => get<CompareView>(`compare${query({ a, b })}`),
    trends: (q: TrendsQuery) => get<TrendView>(`trends${query({ ...q })}`),
    listEvaluations: (q) => get<{ items: EvaluationListItem[] }>(`evaluations${query({ ...q })}`),
    listDiagnostics: () => get<{ items: DiagnosticListItem[] }>('diagnostics'),
    diagnosticUrl: (item, file) => `api/diagnostics/${seg(item.kind)}/${seg(item.id)}/${file}`,
    fileUrl: (runId, path) => `api/runs/${seg(runId)}/files/${path.split('/').map(seg).join('/')}`,
  };
}
