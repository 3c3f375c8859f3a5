import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReports } from '../../src/features/report/index.js';
import { webAssetsDir } from '../../src/features/report/web-assets.js';
import type { AttemptResult } from '../../src/core/types/index.js';
import { CLI } from '../helpers/cli.js';
import { guardedAttempts, recordRun, RUN_ID, sampleAttempts, summaryOf, writeRunDir } from '../report/fixtures.js';

/*
 * report.html of a `--guard` run in a real browser (Debian's Chromium through playwright-core): the
 * "Online guard" panel draws the per-agent counts the run's attempt records add up to, and a run
 * without the guard has no panel. The data is written by the real report writer, not stubbed; the
 * dashboard's run page gets the same counts from `crucible view`'s API.
 */

const CHROMIUM = process.env.CRUCIBLE_CHROMIUM ?? '/usr/bin/chromium';
/** An agent name that would be markup if the panel did not escape it. */
const HOSTILE = 'evil<img src=x onerror="document.title=1">';

describe('online guard panel in the HTML report', () => {
  let browser: Browser;
  const dirs: string[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    // A missing browser fails the suite rather than skipping it: a skipped browser test proves nothing.
    if (!existsSync(CHROMIUM))
      throw new Error(`no Chromium at ${CHROMIUM}: install it (sudo apt-get install -y chromium, as .ci/run does) or set CRUCIBLE_CHROMIUM`);
    if (!existsSync(join(webAssetsDir(), 'assets/app.js'))) throw new Error('the web app is not built: run `npm run build:web` first');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  });

  afterAll(async () => {
    await browser?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** report.html written for these attempts, open in a page. */
  async function openReport(attempts: AttemptResult[]): Promise<Page> {
    const state = mkdtempSync(join(tmpdir(), 'crucible-guard-report-'));
    dirs.push(state);
    const runDir = writeRunDir(state, attempts);
    await writeReports({ runDir, summary: summaryOf(attempts), attempts, reporters: ['html'], env: {} });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(join(runDir, 'report.html')).href);
    await page.getByTestId('run-page').waitFor();
    return page;
  }

  const rowsOf = (page: Page): Promise<string[][]> =>
    page
      .getByTestId('guard')
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => (c.textContent ?? '').trim())));

  it('a guarded run: per agent mode, attempts with incidents, findings, stopped, blocked, audit-only, time to detection', async () => {
    const page = await openReport(guardedAttempts());
    const section = page.locator('section', { has: page.getByTestId('guard') });
    expect(await section.locator('h2').textContent()).toBe('Online guard');
    const note = (await section.locator('p.muted').textContent()) ?? '';
    expect(note).toContain('the post-hoc checks judged every attempt as usual');
    expect(note).toContain('incident.json');
    expect(await page.getByTestId('guard').locator('thead th').allTextContents()).toEqual([
      'agent',
      'mode',
      'attempts with incidents',
      'findings',
      'stopped',
      'blocked commands',
      'audit-only',
      'time to detection',
    ]);
    expect(await rowsOf(page)).toEqual([
      ['oracle', 'enforce', '1 of 2', '2', '0', '0', '2', '80–300 ms'],
      ['openai:gpt-4.1-mini', 'enforce', '2 of 3', '4', '1', '2', '0', '5–40 ms'],
    ]);
    mkdirSync(resolve('test-artifacts/e2e'), { recursive: true });
    await section.screenshot({ path: resolve('test-artifacts/e2e/report-guard.png') });
    await page.close();
  });

  it('an agent name is text in the panel, never markup', async () => {
    const attempts = guardedAttempts().map((a) => (a.agent === 'oracle' ? { ...a, agent: HOSTILE } : a));
    const page = await openReport(attempts);
    expect((await rowsOf(page))[0]?.[0]).toBe(HOSTILE);
    expect(await page.getByTestId('guard').locator('img').count()).toBe(0);
    expect(await page.title()).not.toBe('1');
    await page.close();
  });

  it('a run without --guard has no panel', async () => {
    const page = await openReport(sampleAttempts());
    expect(await page.getByRole('heading', { name: 'Verdict' }).count()).toBe(1);
    expect(await page.getByTestId('guard').count()).toBe(0);
    expect(await page.getByText('Online guard').count()).toBe(0);
    await page.close();
  });

  it("the dashboard's run page shows the same panel, from the API", async () => {
    const state = mkdtempSync(join(tmpdir(), 'crucible-guard-view-'));
    dirs.push(state);
    const attempts = guardedAttempts();
    const runDir = writeRunDir(state, attempts);
    // As `run --guard enforce` leaves it: the mode in plan.json's settings, the counts in summary.json.
    writeFileSync(join(runDir, 'plan.json'), JSON.stringify({ runId: RUN_ID, settings: { sandbox: 'bwrap', guard: 'enforce' } }));
    recordRun(state, attempts);
    const view = spawn(process.execPath, [CLI, 'view', '--port', '0', '--out', state], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    try {
      const url = await new Promise<string>((done, fail) => {
        let out = '';
        view.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
          if (m?.[1]) done(m[1]);
        });
        view.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
        view.once('exit', (code) => fail(new Error(`crucible view exited ${code}: ${out}`)));
      });
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${url}#/runs/${RUN_ID}`);
      await page.getByTestId('guard').waitFor();
      expect(await rowsOf(page)).toEqual([
        ['oracle', 'enforce', '1 of 2', '2', '0', '0', '2', '80–300 ms'],
        ['openai:gpt-4.1-mini', 'enforce', '2 of 3', '4', '1', '2', '0', '5–40 ms'],
      ]);
      await page.close();
    } finally {
      if (view.exitCode === null) {
        view.kill('SIGTERM');
        await new Promise((done) => view.once('exit', done));
      }
    }
  });

  it('no page threw', () => {
    expect(errors).toEqual([]);
  });
});
