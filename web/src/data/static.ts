import type { DataSource } from './source.js';
import type { AttemptListItem, CellView, Page, ReportData } from './types.js';

/** Must match REPORT_DATA_ELEMENT_ID in src/features/report/html.ts. */
export const REPORT_DATA_ELEMENT_ID = 'crucible-report';

export function readInlineReport(doc: Document): ReportData | null {
  const el = doc.getElementById(REPORT_DATA_ELEMENT_ID);
  if (!el?.textContent) return null;
  return JSON.parse(el.textContent) as ReportData;
}

const unsupported = (what: string) => () => Promise.reject(new Error(`${what} needs the dashboard (crucible view); a report holds one run`));

/** Serves one run from data inlined in the page: no network at all. */
export function staticSource(data: ReportData): DataSource {
  const items = data.attempts.map((a) => a.item);
  return {
    mode: 'static',
    listRuns: () => Promise.resolve({ items: [{ ...data.view.run, attempts: data.view.attemptsTotal, live: false }], nextCursor: null }),
    getRun: (runId) =>
      runId === data.view.run.runId ? Promise.resolve(data.view) : Promise.reject(new Error(`this report holds run ${data.view.run.runId}, not ${runId}`)),
    listAttempts: (_runId, q) => {
      const matching = items.filter(
        (i) =>
          (q.agent === undefined || i.agent === q.agent) &&
          (q.taskId === undefined || i.taskId === q.taskId) &&
          (q.verdict === undefined || i.verdict === q.verdict) &&
          (q.cause === undefined || i.cause === q.cause),
      );
      const offset = q.cursor ? Number(q.cursor) : 0;
      const limit = q.limit ?? 50;
      const page: Page<AttemptListItem> = {
        items: matching.slice(offset, offset + limit),
        nextCursor: offset + limit < matching.length ? String(offset + limit) : null,
      };
      return Promise.resolve(page);
    },
    listCells: (_runId, q) => Promise.resolve(cellPageOf(data, q)),
    listPatternIds: (_runId, agent, patternId, q) => {
      const ids = data.view.failurePatterns?.find((a) => a.agent === agent)?.patterns.find((p) => p.id === patternId)?.attemptIds ?? [];
      const offset = q.cursor ? Number(q.cursor) : 0;
      const limit = q.limit ?? 50;
      return Promise.resolve({ items: ids.slice(offset, offset + limit), nextCursor: offset + limit < ids.length ? String(offset + limit) : null });
    },
    getAttempt: (attemptId) => {
      const found = data.attempts.find((a) => a.item.attemptId === attemptId);
      return found ? Promise.resolve(found) : Promise.reject(new Error(`no attempt ${attemptId} in this report`));
    },
    compare: unsupported('comparing runs'),
    trends: unsupported('trends'),
    listEvaluations: () => Promise.resolve({ items: [] }),
    listDiagnostics: () => Promise.resolve({ items: [] }),
    diagnosticUrl: () => null,
    // Report files sit next to report.html, so relative links work from disk.
    fileUrl: (_runId, path) => path,
  };
}

/** The report's cells a page of tasks at a time, as the dashboard pages them: in task order, every agent of each task. */
function cellPageOf(data: ReportData, q: { cursor?: string; limit?: number }): Page<CellView> {
  const cells = data.view.stats?.cells ?? [];
  const tasks = [...new Set(cells.map((c) => c.taskId))].sort();
  const offset = q.cursor ? Number(q.cursor) : 0;
  const limit = q.limit ?? 50;
  const shown = new Set(tasks.slice(offset, offset + limit));
  const items = cells
    .filter((c) => shown.has(c.taskId))
    .map((c) => ({ agent: c.agent, taskId: c.taskId, n: c.n, passes: c.passes, harnessErrors: c.harnessErrors }))
    .sort((x, y) => (x.taskId === y.taskId ? x.agent.localeCompare(y.agent) : x.taskId < y.taskId ? -1 : 1));
  return { items, nextCursor: offset + limit < tasks.length ? String(offset + limit) : null };
}
