import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AttemptView, CompareView, Page, RunListItem, RunView, TrendView } from '../../src/features/report/index.js';
import { createApp } from '../../src/server/index.js';
import { PATTERN_IDS_SHOWN } from '../../src/server/run-views.js';
import { openHistory, type HistoryReader } from '../../src/infra/store/index.js';
import { useTempDirs } from '../helpers/tmp.js';
import { guardedAttempts, RUN_ID, recordRun, sampleAttempts, writeRunDir } from '../report/fixtures.js';

const tempDir = useTempDirs();
const RUN_B = '20261201-090000-beef';

describe('dashboard API', () => {
  let state: string;
  let history: HistoryReader;
  let request: (path: string, init?: RequestInit) => Promise<Response>;

  beforeEach(() => {
    state = tempDir();
    const attempts = sampleAttempts();
    writeRunDir(state, attempts);
    recordRun(state, attempts);
    // Run B: same tasks, fixed; stats not stored, so the server aggregates them from the rows.
    const fixed = attempts.map((a) => ({ ...a, runId: RUN_B, attemptId: a.attemptId.replace('0123456789', 'b000000000') }));
    recordRun(state, fixed, RUN_B, '2026-12-01T09:00:00.000Z', false);
    const web = join(state, 'web');
    mkdirSync(join(web, 'assets'), { recursive: true });
    writeFileSync(join(web, 'index.html'), '<!doctype html><div id="root"></div>');
    writeFileSync(join(web, 'assets', 'app.js'), 'console.log(1)');
    history = openHistory(join(state, 'history.db'), { readonly: true });
    const app = createApp({ stateDir: state, history, webDir: web, allowedHosts: ['localhost', '127.0.0.1'] });
    request = (path, init) => Promise.resolve(app.request(`http://localhost${path}`, init));
  });
  afterEach(() => history.close());

  const json = async <T>(path: string): Promise<T> => {
    const res = await request(path);
    expect(res.status, path).toBe(200);
    return (await res.json()) as T;
  };

  it('lists runs newest first, pages them with a cursor and filters by agent', async () => {
    const first = await json<Page<RunListItem>>('/api/runs?limit=1');
    expect(first.items.map((r) => r.runId)).toEqual([RUN_B]);
    expect(first.items[0]).toMatchObject({ attempts: 6, live: false, counts: { PASS: 3, FAIL: 2, ERROR: 1 } });
    const second = await json<Page<RunListItem>>(`/api/runs?limit=1&cursor=${first.nextCursor}`);
    expect(second.items.map((r) => r.runId)).toEqual([RUN_ID]);
    expect(second.nextCursor).toBeNull();
    expect((await json<Page<RunListItem>>('/api/runs?agent=nobody')).items).toEqual([]);
  });

  it('serves a run page: stats as stored, or aggregated from the history when they were not', async () => {
    const a = await json<RunView>(`/api/runs/${RUN_ID}`);
    expect(a.stats?.agents.map((x) => x.agent)).toEqual(['openai:gpt-4.1-mini', 'oracle']);
    expect(a.attemptsTotal).toBe(6);
    expect(a.heldOut).toEqual([{ agent: 'openai:gpt-4.1-mini', withHeldOut: 1, heldOutPassed: 0, passedPublicFailedHeldOut: 1 }]);
    const b = await json<RunView>(`/api/runs/${RUN_B}`);
    expect(b.stats?.cells.length).toBe(a.stats?.cells.length);
    expect(b.stats?.agents.find((x) => x.agent === 'oracle')?.harnessErrors.count).toBe(1);
    // Neither ran with --guard: no online guard panel.
    expect(a.guard).toBeUndefined();
    expect(b.guard).toBeUndefined();
  });

  it("serves a guarded run's online guard counts per agent, from its summary.json", async () => {
    const runId = '20261201-100000-9a2d';
    const attempts = guardedAttempts().map((a) => ({ ...a, runId, attemptId: a.attemptId.replace('0123456789', 'c000000000') }));
    const runDir = writeRunDir(state, attempts, runId);
    writeFileSync(join(runDir, 'plan.json'), JSON.stringify({ runId, settings: { sandbox: 'bwrap', guard: 'enforce' } }));
    recordRun(state, attempts, runId, '2026-12-01T10:00:00.000Z');
    const view = await json<RunView>(`/api/runs/${runId}`);
    expect(view.guard).toEqual([
      expect.objectContaining({ agent: 'oracle', mode: 'enforce', attempts: 2, incidents: 1, findings: 2, stopped: 0, blocked: 0, auditOnly: 2 }),
      expect.objectContaining({
        agent: 'openai:gpt-4.1-mini',
        attempts: 3,
        incidents: 2,
        findings: 4,
        stopped: 1,
        blocked: 2,
        auditOnly: 0,
        detectionMs: { min: 5, max: 40 },
      }),
    ]);
  });

  it('lists the first ids of a failure pattern with its full count, however many attempts show it', async () => {
    const runDir = join(state, 'runs', RUN_ID);
    const ids = Array.from({ length: 5000 }, (_, i) => `t.agent.${i}`);
    const share = { rate: 1, low: 0.99, high: 1, n: ids.length };
    writeFileSync(
      join(runDir, 'summary.json'),
      JSON.stringify({
        runId: RUN_ID,
        failurePatterns: [
          { agent: 'oracle', failed: ids.length, patterns: [{ id: 'tool_errors', label: 'had tool errors', count: ids.length, share, attemptIds: ids }] },
        ],
      }),
    );
    const view = await json<RunView>(`/api/runs/${RUN_ID}`);
    const pattern = view.failurePatterns?.[0]?.patterns[0];
    expect(pattern?.count).toBe(5000);
    expect(pattern?.attemptIds).toEqual(ids.slice(0, PATTERN_IDS_SHOWN));
    // The rest, a page at a time from where the page stopped.
    const route = `/api/runs/${RUN_ID}/failure-patterns/oracle/tool_errors`;
    const next = await json<Page<string>>(`${route}?cursor=${PATTERN_IDS_SHOWN}&limit=200`);
    expect(next.items).toEqual(ids.slice(PATTERN_IDS_SHOWN, PATTERN_IDS_SHOWN + 200));
    expect(next.nextCursor).toBe(String(PATTERN_IDS_SHOWN + 200));
    const last = await json<Page<string>>(`${route}?cursor=4950&limit=200`);
    expect(last).toEqual({ items: ids.slice(4950), nextCursor: null });
    expect((await request(`/api/runs/${RUN_ID}/failure-patterns/oracle/no_such_pattern`)).status).toBe(404);
    expect((await request(`${route}?cursor=-1`)).status).toBe(400);
  });

  it("pages a run's attempts in plan order, with filters", async () => {
    const page = await json<Page<{ attemptId: string; verdict: string }>>(`/api/runs/${RUN_ID}/attempts?limit=4`);
    expect(page.items).toHaveLength(4);
    const rest = await json<Page<{ attemptId: string }>>(`/api/runs/${RUN_ID}/attempts?limit=4&cursor=${page.nextCursor}`);
    expect(rest.items).toHaveLength(2);
    const failed = await json<Page<{ verdict: string }>>(`/api/runs/${RUN_ID}/attempts?verdict=FAIL`);
    expect(failed.items.map((i) => i.verdict)).toEqual(['FAIL', 'FAIL']);
    const cause = await json<Page<{ cause: string }>>(`/api/runs/${RUN_ID}/attempts?cause=harness_error&agent=oracle`);
    expect(cause.items).toHaveLength(1);
  });

  it('serves an attempt with its evidence: checks, diff, tests and trajectory', async () => {
    const id = sampleAttempts().find((a) => a.cause === 'policy_violation')?.attemptId ?? '';
    const view = await json<AttemptView>(`/api/attempts/${id}`);
    expect(view.attempt.checks.filter((c) => !c.passed).map((c) => c.id)).toEqual(['secrets', 'forbidden_paths', 'outside_writes']);
    expect(view.artifacts.diff?.text).toContain('sorted(values)');
    expect(view.artifacts.tests).toHaveLength(3);
    expect(view.artifacts.trajectory?.total).toBe(3);
    expect(view.item.failedCheckCount).toBe(3);
  });

  it('compares two runs through the engine comparison, and serves trends with intervals', async () => {
    const cmp = await json<CompareView>(`/api/compare?a=${RUN_ID}&b=${RUN_B}`);
    expect(cmp.comparison.pairs.map((p) => p.agentA)).toEqual(['openai:gpt-4.1-mini', 'oracle']);
    expect(cmp.comparison.cells.length).toBeGreaterThan(0);
    expect(cmp.comparison.cells.every((c) => c.change === 'same' || c.change === 'unscored')).toBe(true);
    expect(cmp.rates.find((r) => r.agent === 'oracle')?.a?.rate).toBe(1);
    const trends = await json<TrendView>('/api/trends?bucket=run');
    expect(new Set(trends.points.map((p) => p.bucket))).toEqual(new Set([RUN_ID, RUN_B]));
    expect(trends.points.some((p) => p.n > 0)).toBe(true);
    for (const p of trends.points) if (p.n > 0) expect(p.low).not.toBeNull();
    const perTask = await json<TrendView>('/api/trends?bucket=day&perTask=1&agent=oracle');
    expect(perTask.points.length).toBeGreaterThan(0);
    expect(perTask.points.every((p) => p.agent === 'oracle' && p.taskId !== null)).toBe(true);
  });

  it('answers bad input with 400 and unknown things with 404', async () => {
    expect((await request('/api/runs?limit=0')).status).toBe(400);
    expect((await request('/api/runs?limit=abc')).status).toBe(400);
    expect((await request('/api/runs?cursor=garbage')).status).toBe(400);
    expect((await request(`/api/runs/${RUN_ID}/attempts?verdict=MAYBE`)).status).toBe(400);
    expect((await request('/api/runs/nope-0000')).status).toBe(404);
    expect((await request('/api/attempts/nope')).status).toBe(404);
    expect((await request('/api/compare?a=x&b=y')).status).toBe(404);
    expect((await request('/api/nothing')).status).toBe(404);
  });

  it('is read-only, checks the Host header, and sends security headers', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await request('/api/runs', { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD');
    }
    expect((await request('/api/runs', { headers: { host: 'attacker.example' } })).status).toBe(421);
    const res = await request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves run files sandboxed, and the web app from its own directory', async () => {
    const res = await request(`/api/runs/${RUN_ID}/files/summary.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('content-security-policy')).toMatch(/^sandbox allow-scripts;/);
    expect((await request('/assets/app.js')).headers.get('content-type')).toContain('text/javascript');
    expect((await request(`/api/runs/${RUN_ID}/files/attempts`)).status).toBe(404);
  });
});
