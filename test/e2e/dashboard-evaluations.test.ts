import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHistory } from '../../src/infra/store/index.js';
import { CLI } from '../helpers/cli.js';
import { RUN_ID, recordRun, sampleAttempts, writeRunDir } from '../report/fixtures.js';

/*
 * Issue 14's dashboard parts in Chromium, on a history made directly (no runs executed, so this is
 * cheap): ci and gate results on the runs page, and a baseline file on the compare page.
 */
const CHROMIUM = process.env.CRUCIBLE_CHROMIUM ?? '/usr/bin/chromium';

describe('dashboard: ci/gate results and a baseline file, in Chromium', () => {
  let state: string;
  let view: ChildProcess | undefined;
  let url: string;
  let browser: Browser;
  const problems: string[] = [];
  const watch = (page: Page): Page => {
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    return page;
  };

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install it or set CRUCIBLE_CHROMIUM`);
    if (!existsSync('dist/web/assets/app.js')) throw new Error('the web app is not built: run `npm run build` first');
    state = mkdtempSync(join(tmpdir(), 'crucible-e2e-eval-'));
    const attempts = sampleAttempts();
    writeRunDir(state, attempts);
    recordRun(state, attempts);
    const history = openHistory(join(state, 'history.db'));
    history.recordEvaluation({
      id: 'ci-0001',
      kind: 'ci',
      createdAt: '2026-11-30T11:00:00.000Z',
      verdict: 'FAIL',
      title: 'main..pr: tampered',
      reportDir: '/r/ci-0001',
      detail: {},
    });
    history.recordEvaluation({
      id: 'gate-0001',
      kind: 'gate',
      createdAt: '2026-11-30T12:00:00.000Z',
      verdict: 'PASS',
      title: 'no regression',
      runId: RUN_ID,
      reportDir: '/r/gate-0001',
      detail: {},
    });
    history.close();
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

  it('the runs page lists ci and gate results with verdict badges, filterable by kind', async () => {
    const page = watch(await browser.newPage());
    await page.goto(url);
    const rows = page.getByTestId('evaluations').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toContain('gate-0001');
    expect(await rows.nth(0).locator('.badge.verdict-pass').textContent()).toBe('PASS');
    expect(await rows.nth(1).locator('.badge.verdict-fail').textContent()).toBe('FAIL');
    await page.getByTestId('evaluations-kind').selectOption('ci');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.nth(0).textContent()).toContain('main..pr: tampered');
    expect(problems).toEqual([]);
  });

  it('the compare page reads a baseline file and highlights PASS→FAIL flips for the chosen run', async () => {
    const baseline = join(state, 'baseline.json');
    const trial = (verdict: string) => [{ trial: 0, verdict, cause: verdict === 'PASS' ? 'passed' : 'tests_failed', failedChecks: [] }];
    writeFileSync(
      baseline,
      JSON.stringify({
        version: 1,
        createdAt: '2026-11-29T10:00:00.000Z',
        sourceRun: 'run-base',
        taskSet: 'examples/tasks.yaml',
        trials: 1,
        entries: [
          { taskId: 'js-slugify', taskVersion: 'v1', agent: { spec: 'openai:gpt-4.1-mini', model: 'gpt-4.1-mini' }, attempts: trial('PASS') },
          { taskId: 'py-median', taskVersion: 'v1', agent: { spec: 'oracle' }, attempts: trial('PASS') },
        ],
      }),
    );
    const page = watch(await browser.newPage());
    await page.goto(`${url}#/compare?b=${RUN_ID}`);
    await page.getByTestId('baseline-file').setInputFiles(baseline);
    await expect.poll(async () => (await page.getByTestId('baseline-flips').textContent()) ?? '').toContain('1 PASS→FAIL');
    const flipped = page.locator('[data-testid="baseline-rows"] tr.flip');
    expect(await flipped.count()).toBe(1);
    expect(await flipped.textContent()).toContain('js-slugify');

    const bad = join(state, 'bad.json');
    writeFileSync(bad, '{"version":2,"entries":[]}');
    await page.getByTestId('baseline-file').setInputFiles(bad);
    await expect.poll(async () => (await page.locator('.error').textContent()) ?? '').toContain('bad.json: version: expected 1, got 2');
    expect(problems).toEqual([]);
  });
});
