/**
 * The dashboard on a run larger than any page: the run page carries its statistics without the
 * cells, the heatmap's cells come a page of tasks at a time with a cursor, the task filter is
 * bounded, and a comparison lists its changed cells first with the totals beside them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptResult } from '../../src/core/types/index.js';
import { aggregateRun } from '../../src/domain/stats/index.js';
import type { CellView, CompareView, Page, RunListItem, RunView } from '../../src/features/report/index.js';
import { openHistory, type HistoryReader } from '../../src/infra/store/index.js';
import { COMPARE_CELLS_SHOWN } from '../../src/server/compare-view.js';
import { createApp } from '../../src/server/index.js';
import { MAX_TASK_OPTIONS } from '../../src/server/run-views.js';
import { attempt, runMeta, tempDir } from '../store/helpers/attempts.js';

const AGENTS = ['a0', 'a1', 'a2'];
const TASKS = 520;
const RUN_A = '20250301-100000-aaaa';
const RUN_B = '20250302-100000-bbbb';

/** One trial per agent and task; run B fails every task whose number is a multiple of 7 that A passed. */
function attemptsOf(runId: string): AttemptResult[] {
  const out: AttemptResult[] = [];
  for (let t = 0; t < TASKS; t++) {
    for (const [g, agent] of AGENTS.entries()) {
      const index = t * AGENTS.length + g;
      const passes = runId === RUN_A ? (t + g) % 3 !== 0 : (t + g) % 3 !== 0 && t % 7 !== 0;
      const taskId = `task-${String(t).padStart(4, '0')}`;
      out.push(attempt({ attemptId: `${runId}-${index}`, runId, taskId, agent, index, cause: passes ? 'passed' : 'tests_failed' }));
    }
  }
  return out;
}

/**
 * Stored statistics with cells, as the engine stores them; of the first tasks only, since the
 * paired tests over every task would cost seconds here and the page sends no cells either way.
 */
const statsOf = (attempts: AttemptResult[]) => aggregateRun(attempts.slice(0, 10 * AGENTS.length));

const tmp = tempDir('large-run');
let history: HistoryReader;
let request: (path: string) => Promise<Response>;

beforeAll(() => {
  const writer = openHistory(join(tmp.dir, 'history.db'));
  for (const runId of [RUN_A, RUN_B]) {
    const attempts = attemptsOf(runId);
    writer.recordRun(runMeta(runId, { agents: AGENTS, planned: attempts.length }));
    writer.recordAttempts(
      runId,
      attempts.map((a) => ({ attempt: a })),
    );
    const counts = { PASS: attempts.filter((a) => a.verdict === 'PASS').length, FAIL: attempts.filter((a) => a.verdict === 'FAIL').length, ERROR: 0 };
    writer.finishRun(runId, { finishedAt: '2025-03-02T12:00:00.000Z', executed: attempts.length, stoppedEarly: false, counts, stats: statsOf(attempts) });
  }
  writer.close();
  const web = join(tmp.dir, 'web');
  mkdirSync(web, { recursive: true });
  writeFileSync(join(web, 'index.html'), '<!doctype html>');
  history = openHistory(join(tmp.dir, 'history.db'), { readonly: true });
  const app = createApp({ stateDir: tmp.dir, history, webDir: web });
  request = (path) => Promise.resolve(app.request(`http://localhost${path}`));
});

afterAll(() => {
  history.close();
  tmp.cleanup();
});

const json = async <T>(path: string): Promise<T> => {
  const res = await request(path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
};

describe('the dashboard on a run of more cells than a page', () => {
  it('lists runs with their recorded counts from the tallies', async () => {
    const runs = await json<Page<RunListItem>>('/api/runs');
    expect(runs.items.map((r) => [r.runId, r.attempts])).toEqual([
      [RUN_B, TASKS * AGENTS.length],
      [RUN_A, TASKS * AGENTS.length],
    ]);
  });

  it('sends the run page without cells, with the attempt total and a bounded task list', async () => {
    const view = await json<RunView>(`/api/runs/${RUN_A}`);
    expect(view.stats?.agents.map((a) => a.agent)).toEqual(AGENTS);
    expect(view.stats?.cells).toEqual([]);
    expect(view.cellsPaged).toBe(true);
    expect(view.attemptsTotal).toBe(TASKS * AGENTS.length);
    expect(view.tasks).toHaveLength(MAX_TASK_OPTIONS);
    expect(view.tasks?.[0]).toBe('task-0000');
    expect(view.tasksTruncated).toBe(true);
  });

  it('pages the heatmap by tasks, every agent of each, until the last page', async () => {
    const first = await json<Page<CellView>>(`/api/runs/${RUN_A}/cells?limit=200`);
    expect(first.items).toHaveLength(200 * AGENTS.length);
    expect(first.items[0]).toEqual({ agent: 'a0', taskId: 'task-0000', n: 1, passes: 0, harnessErrors: 0 });
    expect(first.nextCursor).not.toBeNull();
    const seen = new Set(first.items.map((c) => c.taskId));
    let cursor = first.nextCursor;
    while (cursor) {
      const page: Page<CellView> = await json<Page<CellView>>(`/api/runs/${RUN_A}/cells?limit=200&cursor=${cursor}`);
      for (const c of page.items) seen.add(c.taskId);
      cursor = page.nextCursor;
    }
    expect(seen.size).toBe(TASKS);
    expect((await request(`/api/runs/${RUN_A}/cells?limit=201`)).status).toBe(400);
    expect((await request('/api/runs/20990101-000000-ffff/cells')).status).toBe(404);
  });

  it('compares the runs over every cell, listing the changed cells first and the totals', async () => {
    const view = await json<CompareView>(`/api/compare?a=${RUN_A}&b=${RUN_B}`);
    const worse = attemptsOf(RUN_A).filter((a) => a.verdict === 'PASS' && Number(a.taskId.slice(5)) % 7 === 0).length;
    expect(view.totals).toEqual({ cells: TASKS * AGENTS.length, regressions: worse, improvements: 0 });
    expect(view.comparison.cells).toHaveLength(COMPARE_CELLS_SHOWN);
    expect(view.comparison.cells.slice(0, worse).every((c) => c.change === 'worse')).toBe(true);
    expect(view.comparison.regressions).toHaveLength(Math.min(worse, COMPARE_CELLS_SHOWN));
    expect(view.comparison.pairs.map((p) => p.agentA)).toEqual(AGENTS);
  });
});
