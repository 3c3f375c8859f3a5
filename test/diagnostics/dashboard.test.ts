import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDiagnosticReport } from '../../src/features/diagnostics/index.js';
import { openHistory } from '../../src/infra/store/index.js';
import { CLI } from '../helpers/cli.js';

/* The runs page lists diagnostics reports (written directly: nothing is executed), in Chromium. */
const CHROMIUM = process.env.CRUCIBLE_CHROMIUM ?? '/usr/bin/chromium';

describe('dashboard: diagnostics reports, in Chromium', () => {
  let state: string;
  let view: ChildProcess | undefined;
  let url: string;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install it or set CRUCIBLE_CHROMIUM`);
    if (!existsSync('dist/web/assets/app.js')) throw new Error('the web app is not built: run `npm run build` first');
    state = mkdtempSync(join(tmpdir(), 'crucible-e2e-diag-'));
    openHistory(join(state, 'history.db')).close();
    await writeDiagnosticReport(state, 'mutations', 'mut-0001', {
      json: { createdAt: '2026-12-01T10:00:00.000Z', valid: true },
      markdown: '# Mutation audit mut-0001\n\n**VALID**: 50/50 expected detections (100.0%)\n',
    });
    await writeDiagnosticReport(state, 'ablation', 'abl-0001', {
      json: { createdAt: '2026-12-01T11:00:00.000Z', valid: false },
      markdown: '# Check ablation abl-0001\n\n**Control invalid**: no contribution is claimed.\n',
    });
    const child = spawn(process.execPath, [CLI, 'view', '--port', '0', '--out', state], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    view = child;
    url = await new Promise<string>((done, fail) => {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
        if (m?.[1]) done(m[1]);
      });
      child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('exit', (code) => fail(new Error(`crucible view exited ${code}: ${out}`)));
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  });

  afterAll(async () => {
    await browser?.close();
    if (view?.pid !== undefined && view.exitCode === null) {
      view.kill('SIGTERM');
      await new Promise((done) => view?.once('exit', done));
    }
    if (state) rmSync(state, { recursive: true, force: true });
  });

  it('lists each report with its result and links to its Markdown', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(url);
    const rows = page.getByTestId('diagnostics').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toContain('abl-0001');
    expect(await rows.nth(0).locator('.badge.verdict-fail').textContent()).toBe('FAIL');
    expect(await rows.nth(1).textContent()).toContain('VALID: 50/50 expected detections');
    const link = await rows.nth(1).getByRole('link', { name: 'report.md' }).getAttribute('href');
    const res = await page.request.get(new URL(link ?? '', url).toString());
    expect(await res.text()).toContain('# Mutation audit mut-0001');
    expect(problems).toEqual([]);
  });
});
