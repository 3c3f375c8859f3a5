import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { CLI, crucible } from '../helpers/cli.js';
import { sharedExampleRun } from '../helpers/examples.js';

/*
 * The dashboard and the HTML report in a real browser: Debian's Chromium driven by playwright-core
 * (no browser download). The data comes from the real CLI: two example runs (the first the e2e
 * tier's shared run, copied), then `crucible view`.
 * Screenshots are kept in test-artifacts/e2e/ (gitignored); docs/screenshots/ holds current ones.
 */

const CHROMIUM = process.env.CRUCIBLE_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = resolve('test-artifacts/e2e');
/** oracle and nop on every bundled example. */
const FULL_RUN_ATTEMPTS = loadTaskSet('examples/tasks.yaml').tasks.length * 2;
// A missing browser fails the suite rather than skipping it: a skipped browser test proves nothing.
const CHART_NAMES = ['heatmap', 'causes', 'latency'];
/** oracle and nop make no model request: their run has no cost or tokens to draw. */
const FOLDED_NAMES = ['cost', 'tokens'];

describe('dashboard and HTML report in Chromium', () => {
  let state: string;
  let view: ChildProcess | undefined;
  let url: string;
  let browser: Browser;
  let runs: string[];
  const problems: string[] = [];

  const watch = (page: Page): Page => {
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    return page;
  };
  /** Every chart with data is an SVG with shapes in it and a row or label per agent; the others are one line each. */
  const expectChartsDrawn = async (page: Page): Promise<void> => {
    for (const name of CHART_NAMES) {
      const chart = page.locator(`svg[data-chart="${name}"]`);
      // The heatmap loads its cells by page after the run page draws: wait for them, not for a guess.
      await expect.poll(() => chart.locator(':is(rect, circle, line, polyline)').count(), { message: name }).toBeGreaterThan(0);
      const text = (await chart.textContent()) ?? '';
      expect(text, name).toContain('oracle');
      expect(text, name).toContain('nop');
    }
    for (const name of FOLDED_NAMES) {
      expect(await page.locator(`svg[data-chart="${name}"]`).count(), name).toBe(0);
      const note = (await page.locator(`[data-folded="${name}"]`).textContent()) ?? '';
      expect(note, name).toContain('oracle');
      expect(note, name).toContain('nop');
    }
  };
  const shot = (page: Page, name: string, fullPage = true) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage });

  beforeAll(
    async () => {
      if (!existsSync(CHROMIUM)) {
        throw new Error(`no Chromium at ${CHROMIUM}: install it (sudo apt-get install -y chromium, as .ci/run does) or set CRUCIBLE_CHROMIUM`);
      }
      if (!existsSync(CLI) || !existsSync('dist/web/assets/app.js')) throw new Error('the CLI or the web app is not built: run `npm run build` first');
      mkdirSync(ARTIFACTS, { recursive: true });
      state = mkdtempSync(join(tmpdir(), 'crucible-e2e-'));
      // The tier's shared run of every example (test/setup/examples.ts), copied: this state gets a second run.
      const full = await sharedExampleRun();
      expect(full.attempts).toBe(FULL_RUN_ATTEMPTS);
      expect(full.status, full.stderr).toBe(1);
      cpSync(full.state, state, { recursive: true });
      const part = crucible(
        ['run', 'examples/tasks.yaml', '--agent', 'oracle', '--agent', 'nop', '--task', 'js-sortby', '--task', 'py-roman-subtractive', '--out', state],
        { attempts: 4 },
      );
      expect(part.status, part.stderr).toBe(1);
      runs = readdirSync(join(state, 'runs')).sort();
      expect(runs).toHaveLength(2);

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
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
      // The two runs' attempts, plus one attempt's allowance for the server and the browser.
    },
    attemptBudget(FULL_RUN_ATTEMPTS + 4 + 1),
  );

  afterAll(async () => {
    await browser?.close();
    if (view?.pid !== undefined && view.exitCode === null) {
      view.kill('SIGTERM');
      await new Promise((done) => view?.once('exit', done));
    }
    if (state) rmSync(state, { recursive: true, force: true });
  });

  it('runs → run → attempt → diff, every chart drawn', async () => {
    const page = watch(await browser.newPage({ viewport: { width: 1280, height: 900 } }));
    await page.goto(url);
    await expect.poll(() => page.locator('a.run-link').count()).toBe(2);
    await shot(page, 'dashboard-runs', false);

    // The older run has all six tasks.
    await page.locator('a.run-link', { hasText: runs[0] ?? '' }).click();
    await page.getByTestId('run-page').waitFor();
    await expectChartsDrawn(page);
    await expect.poll(() => page.locator('a.attempt-link').count()).toBe(12);
    expect(await page.getByTestId('paired').textContent()).toContain('oracle is better than nop');
    await shot(page, 'dashboard-run');

    await page.locator('select[name="agent"]').selectOption('oracle');
    await expect.poll(() => page.locator('a.attempt-link').count()).toBe(6);
    await page.locator('a.attempt-link', { hasText: 'py-roman-subtractive' }).click();
    await page.getByTestId('attempt-page').waitFor();
    expect(await page.getByTestId('checks').locator('tbody tr').count()).toBeGreaterThan(5);
    await page.getByRole('tab', { name: /Diff/ }).click();
    await page.getByTestId('diff').waitFor();
    expect(await page.locator('.diff-table tr.line-add').count()).toBeGreaterThan(0);
    expect(await page.locator('.diff-table mark.change, .diff-table .tok-string').count()).toBeGreaterThan(0);
    await shot(page, 'dashboard-attempt-diff');

    await page.getByRole('tab', { name: 'Tests' }).click();
    await page.getByTestId('tests').waitFor();
    expect(await page.getByTestId('tests').textContent()).toContain('Held-out tests');
    await page.getByRole('tab', { name: 'Trajectory' }).click();
    await page.getByRole('tab', { name: 'Commands' }).click();
    await page.getByTestId('commands').waitFor();
    await page.close();
  });

  it('compares two runs picked on the runs page, and shows trends', async () => {
    const page = watch(await browser.newPage({ viewport: { width: 1280, height: 900 } }));
    await page.goto(url);
    await expect.poll(() => page.locator('a.run-link').count()).toBe(2);
    for (const run of runs) await page.getByLabel(`pick ${run}`).check();
    await page.getByTestId('compare-picked').click();
    await page.getByTestId('compare-page').waitFor();
    expect(await page.getByTestId('compare-verdicts').locator('li').count()).toBe(2);
    expect(await page.getByTestId('compare-cells').locator('tbody tr').count()).toBe(12);
    await shot(page, 'dashboard-compare');

    await page.getByRole('link', { name: 'Trends' }).click();
    await page.getByTestId('trends-page').waitFor();
    await page.locator('select[name="bucket"]').selectOption('run');
    await expect.poll(() => page.locator('svg[data-chart="trend"] polyline').count()).toBe(2);
    await shot(page, 'dashboard-trends');
    await page.close();
  });

  it('opens report.html from disk with the network cut, and draws every chart', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const outside: string[] = [];
    await context.route('**/*', (route) => {
      const target = route.request().url();
      if (target.startsWith('file:') || target.startsWith('data:')) return route.continue();
      outside.push(target);
      return route.abort();
    });
    const page = watch(await context.newPage());
    await page.goto(pathToFileURL(join(state, 'runs', runs[0] ?? '', 'report.html')).href);
    await page.getByTestId('run-page').waitFor();
    await expectChartsDrawn(page);
    expect(await page.locator('[data-card="reliability"]').count()).toBe(2);
    expect(await page.locator('[data-card="held-out"]').count()).toBe(2);
    await shot(page, 'report');

    await page.locator('a.attempt-link', { hasText: 'js-csv-quoting' }).first().click();
    await page.getByTestId('attempt-page').waitFor();
    await page.getByRole('tab', { name: /Diff/ }).click();
    await page.getByTestId('diff').or(page.getByText('The agent changed nothing.')).waitFor();
    await shot(page, 'report-attempt');
    expect(outside).toEqual([]);
    await context.close();
  });

  it('no page threw or logged an error', () => {
    expect(problems).toEqual([]);
  });
});
