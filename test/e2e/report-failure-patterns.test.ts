import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureFacts } from '../../src/domain/failures/failure-facts.js';
import { failurePatterns } from '../../src/domain/failures/failure-patterns.js';
import { writeReports } from '../../src/features/report/index.js';
import { webAssetsDir } from '../../src/features/report/web-assets.js';
import type { AttemptResult } from '../../src/core/types/index.js';
import { sampleAttempts, summaryOf, writeRunDir } from '../report/fixtures.js';

/*
 * report.html's "Failure patterns" panel in a real browser (Debian's Chromium through
 * playwright-core), from summary.json's table as the real report writer writes it: per agent and
 * pattern the count, the share with its interval, and each attempt as a link to its page.
 */
const CHROMIUM = process.env.CRUCIBLE_CHROMIUM ?? '/usr/bin/chromium';

describe('failure patterns panel in the HTML report', () => {
  let browser: Browser;
  const dirs: string[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install it or set CRUCIBLE_CHROMIUM`);
    if (!existsSync(join(webAssetsDir(), 'assets/app.js'))) throw new Error('the web app is not built: run `npm run build:web` first');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  });

  afterAll(async () => {
    await browser?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    expect(errors).toEqual([]);
  });

  async function openReport(attempts: AttemptResult[], withPatterns: boolean, recorded = true): Promise<Page> {
    const state = mkdtempSync(join(tmpdir(), 'crucible-patterns-report-'));
    dirs.push(state);
    const runDir = writeRunDir(state, attempts);
    const table = failurePatterns(
      attempts.map((a) => ({
        attemptId: a.attemptId,
        agent: a.agent,
        verdict: a.verdict,
        facts: failureFacts({ trajectory: [], commands: [], changedFiles: [], failToPass: [], allowedPaths: [], stopReason: 'max_turns' }),
        recorded,
      })),
    );
    const summary = { ...summaryOf(attempts), ...(withPatterns ? { failurePatterns: table } : {}) };
    await writeReports({ runDir, summary, attempts, reporters: ['html'], env: {} });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(join(runDir, 'report.html')).href);
    await page.getByTestId('run-page').waitFor();
    return page;
  }

  it('lists each agent and pattern with its count and share, and links every attempt it covers', async () => {
    const attempts = sampleAttempts();
    const failed = attempts.filter((a) => a.verdict === 'FAIL');
    const page = await openReport(attempts, true);
    const panel = page.getByTestId('failure-patterns');
    expect(await page.locator('section', { has: panel }).locator('h2').textContent()).toBe('Failure patterns');
    const rows = await panel.locator('tbody tr').evaluateAll((trs) => trs.map((r) => [...r.children].map((c) => (c.textContent ?? '').trim())));
    const limit = rows.filter((r) => r[1] === 'stopped at a limit');
    expect(limit.map((r) => r[0]).sort()).toEqual([...new Set(failed.map((a) => a.agent))].sort());
    for (const r of limit) expect(r[3]).toMatch(/^100% \[\d+%, 100%\]$/);
    const links = await panel.locator('a.pattern-attempt-link').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    for (const a of failed) expect(links).toContain(`#/attempts/${a.attemptId}`);
    await page.close();
  });

  it('says which agents failed without a trajectory, and reads only the stop and diff patterns on them', async () => {
    const page = await openReport(sampleAttempts(), true, false);
    const ids = await page.getByTestId('failure-patterns').locator('tbody tr td:first-of-type').allTextContents();
    expect(ids).toContain('stopped at a limit');
    expect(ids).not.toContain('never ran the tests');
    expect(await page.getByTestId('failure-patterns-unrecorded').textContent()).toMatch(/^Without a trajectory .*: \S+ \d+ of \d+/);
    await page.close();
  });

  it('a run without failure patterns has no panel', async () => {
    const page = await openReport(sampleAttempts(), false);
    expect(await page.getByRole('heading', { name: 'Verdict' }).count()).toBe(1);
    expect(await page.getByTestId('failure-patterns').count()).toBe(0);
    await page.close();
  });
});
