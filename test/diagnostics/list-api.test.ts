import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeDiagnosticReport } from '../../src/features/diagnostics/index.js';
import { createApp } from '../../src/server/index.js';
import { openHistory } from '../../src/infra/store/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function serve(state: string): (path: string) => Promise<Response> {
  const web = join(state, 'web');
  mkdirSync(web, { recursive: true });
  writeFileSync(join(web, 'index.html'), '<!doctype html>');
  openHistory(join(state, 'history.db')).close();
  const app = createApp({ stateDir: state, history: openHistory(join(state, 'history.db'), { readonly: true }), webDir: web });
  return (path) => Promise.resolve(app.request(`http://localhost${path}`));
}

describe('GET /api/diagnostics', () => {
  it('lists every kind newest first with its own pass/fail and summary line, and serves the reports', async () => {
    const state = tempDir();
    await writeDiagnosticReport(state, 'mutations', 'mut-1', {
      json: { createdAt: '2026-12-01T10:00:00.000Z', valid: false },
      markdown: '# Mutation audit mut-1\n\n**INVALID**: 49/50 expected detections\n',
    });
    await writeDiagnosticReport(state, 'ablation', 'abl-1', {
      json: { createdAt: '2026-12-01T11:00:00.000Z', valid: true },
      markdown: '# Ablation\n\nControl valid\n',
    });
    await writeDiagnosticReport(state, 'fuzz', 'fuzz-1', {
      json: { createdAt: '2026-12-01T09:00:00.000Z', verdict: 'disagree' },
      markdown: '# Fuzz\n\nseed 7\n',
    });
    await writeDiagnosticReport(state, 'matrix-stress', 'ms-1', { json: { createdAt: '2026-12-01T08:00:00.000Z' }, markdown: '# Stress\n\nn\n' });
    // A report directory that is a symlink out of the state directory is not listed.
    const outside = tempDir();
    await writeDiagnosticReport(outside, 'fuzz', 'elsewhere', { json: { createdAt: '2026-12-01T12:00:00.000Z' }, markdown: '# x\n' });
    symlinkSync(join(outside, 'diagnostics', 'fuzz', 'elsewhere'), join(state, 'diagnostics', 'fuzz', 'linked'));
    const get = serve(state);

    const res = await get('/api/diagnostics');
    expect(res.status).toBe(200);
    const { items } = (await res.json()) as { items: Array<Record<string, unknown>> };
    expect(items.map((i) => [i.kind, i.id, i.ok])).toEqual([
      ['ablation', 'abl-1', true],
      ['mutations', 'mut-1', false],
      ['fuzz', 'fuzz-1', false],
      ['matrix-stress', 'ms-1', undefined],
    ]);
    expect(items[1]).toMatchObject({ summary: 'INVALID: 49/50 expected detections', dir: 'diagnostics/mutations/mut-1' });

    const md = await get('/api/diagnostics/mutations/mut-1/report.md');
    expect(md.status).toBe(200);
    expect(await md.text()).toContain('49/50');
    expect((await get('/api/diagnostics/mutations/nope/report.json')).status).toBe(404);
    expect((await get('/api/diagnostics/mutations/mut-1/other.txt')).status).toBe(400);
    expect((await get('/api/diagnostics/runs/mut-1/report.md')).status).toBe(400);
    expect((await get('/api/diagnostics/fuzz/linked/report.json')).status).toBe(403);
  });

  it('is empty when no diagnostic ran', async () => {
    const res = await serve(tempDir())('/api/diagnostics');
    expect(await res.json()).toEqual({ items: [] });
  });
});
