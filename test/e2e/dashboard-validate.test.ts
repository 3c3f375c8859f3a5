import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHistory } from '../../src/infra/store/index.js';
import { CLI } from '../helpers/cli.js';
import { attempt, RUN_ID, recordRun, sampleAttempts, summaryOf, writeRunDir } from '../report/fixtures.js';

/*
 * A `crucible validate` run in the dashboard, on a history made directly (cheap): listed with its
 * kind next to an ordinary run, its page marked, and its attempts' evidence read from validate/.
 */
const CHROMIUM = process.env.CRUCIBLE_CHROMIUM ?? '/usr/bin/chromium';
const VALIDATE_ID = '20261130-120000-beef';

describe('dashboard: validate runs, in Chromium', () => {
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
    state = mkdtempSync(join(tmpdir(), 'crucible-e2e-validate-'));
    const attempts = sampleAttempts();
    writeRunDir(state, attempts);
    recordRun(state, attempts);

    // The validate run: nop and oracle on one task, its files where `crucible validate` puts them.
    const checks = [
      attempt({ taskId: 'js-slugify', agent: 'nop', verdict: 'FAIL', runId: VALIDATE_ID, diff: undefined }),
      attempt({ taskId: 'js-slugify', agent: 'oracle', runId: VALIDATE_ID }),
    ].map((a, index) => ({ ...a, index }));
    writeRunDir(state, checks, VALIDATE_ID);
    mkdirSync(join(state, 'validate'));
    renameSync(join(state, 'runs', VALIDATE_ID), join(state, 'validate', VALIDATE_ID));
    const history = openHistory(join(state, 'history.db'));
    const s = summaryOf(checks, VALIDATE_ID);
    history.recordRun({
      runId: VALIDATE_ID,
      kind: 'validate',
      taskSet: 'examples/tasks.yaml',
      createdAt: '2026-11-30T12:00:00.000Z',
      planned: 2,
      agents: ['nop', 'oracle'],
    });
    history.recordAttempts(
      VALIDATE_ID,
      checks.map((a) => ({ attempt: a })),
    );
    history.finishRun(VALIDATE_ID, { finishedAt: s.finishedAt, executed: 2, stoppedEarly: false, counts: s.counts });
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

  it('lists the validate run with its kind, marks its page, and shows its attempts with their evidence', async () => {
    const page = watch(await browser.newPage({ viewport: { width: 1280, height: 900 } }));
    await page.goto(url);
    await expect.poll(() => page.locator('a.run-link').count()).toBe(2);
    const kinds = await page.locator('table.runs tbody td[data-kind]').allTextContents();
    expect(kinds.map((k) => k.trim())).toEqual(['validate', 'run']);

    await page.locator('a.run-link', { hasText: VALIDATE_ID }).click();
    await page.getByTestId('run-page').waitFor();
    expect(await page.getByTestId('run-kind').textContent()).toBe('validate');
    await expect.poll(() => page.locator('a.attempt-link').count()).toBe(2);

    await page.locator('a.attempt-link', { hasText: 'js-slugify' }).last().click();
    await page.getByTestId('attempt-page').waitFor();
    await page.getByRole('tab', { name: /Diff/ }).click();
    await page.getByTestId('diff').waitFor();
    expect(await page.locator('.diff-table tr.line-add').count()).toBeGreaterThan(0);

    await page.goto(`${url}#/runs/${RUN_ID}`);
    await page.getByTestId('run-page').waitFor();
    expect(await page.getByTestId('run-kind').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });
});
