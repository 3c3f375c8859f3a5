import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/index.js';
import { openHistory, type EvaluationListItem, type EvaluationRecord } from '../../src/infra/store/index.js';
import { SCHEMA_V1 } from '../../src/infra/store/schema-v1.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function evaluation(id: string, kind: 'ci' | 'gate', createdAt: string, verdict: 'PASS' | 'FAIL'): EvaluationRecord {
  return {
    id,
    kind,
    createdAt,
    verdict,
    title: `${id}: ${verdict}`,
    reportDir: `/r/${id}`,
    detail: { secretish: 'not listed' },
    ...(kind === 'gate' ? { runId: 'run-1' } : {}),
  };
}

function serve(state: string): (path: string) => Promise<Response> {
  const web = join(state, 'web');
  mkdirSync(web, { recursive: true });
  writeFileSync(join(web, 'index.html'), '<!doctype html>');
  const history = openHistory(join(state, 'history.db'), { readonly: true });
  const app = createApp({ stateDir: state, history, webDir: web });
  return (path) => Promise.resolve(app.request(`http://localhost${path}`));
}

describe('GET /api/evaluations', () => {
  it('lists ci and gate results newest first, filters by kind, limits, without detail', async () => {
    const state = tempDir();
    const writer = openHistory(join(state, 'history.db'));
    writer.recordEvaluation(evaluation('ci-1', 'ci', '2026-11-30T09:00:00.000Z', 'FAIL'));
    writer.recordEvaluation(evaluation('gate-1', 'gate', '2026-11-30T10:00:00.000Z', 'PASS'));
    writer.recordEvaluation(evaluation('ci-2', 'ci', '2026-11-30T11:00:00.000Z', 'PASS'));
    writer.close();
    const request = serve(state);
    const list = async (query: string): Promise<EvaluationListItem[]> => {
      const res = await request(`/api/evaluations${query}`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { items: EvaluationListItem[] }).items;
    };
    expect((await list('')).map((e) => e.id)).toEqual(['ci-2', 'gate-1', 'ci-1']);
    expect(await list('?kind=gate')).toEqual([
      { id: 'gate-1', kind: 'gate', createdAt: '2026-11-30T10:00:00.000Z', verdict: 'PASS', title: 'gate-1: PASS', runId: 'run-1', reportDir: '/r/gate-1' },
    ]);
    expect((await list('?kind=ci&limit=1')).map((e) => e.id)).toEqual(['ci-2']);
  });

  it('refuses a bad kind or limit with 400', async () => {
    const state = tempDir();
    openHistory(join(state, 'history.db')).close();
    const request = serve(state);
    const bad = await request('/api/evaluations?kind=run');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'kind must be one of ci, gate' });
    expect((await request('/api/evaluations?limit=0')).status).toBe(400);
  });

  it('serves a history file still at schema v1 (no evaluations yet) without upgrading it', async () => {
    const state = tempDir();
    const raw = new Database(join(state, 'history.db'));
    raw.exec(SCHEMA_V1);
    raw.pragma('user_version = 1');
    raw.pragma(`application_id = ${0x43524342}`);
    raw.close();
    const request = serve(state);
    expect(await (await request('/api/evaluations')).json()).toEqual({ items: [] });
    expect((await request('/api/runs')).status).toBe(200);
  });
});
