import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReports } from '../../src/features/report/index.js';
import { webAssetsDir } from '../../src/features/report/web-assets.js';
import { attempt, summaryOf, writeRunDir } from '../report/fixtures.js';

/*
 * Two models of one provider in report.html: their names share a long prefix, which a cut at a
 * fixed width made identical (`openai-compat…`). Every chart must tell them apart and name them.
 */

const CHROMIUM = process.env.CRUCIBLE_CHROMIUM ?? '/usr/bin/chromium';
const PLUS = 'openai-compatible:qwen3-coder-plus';
const FLASH = 'openai-compatible:qwen3-coder-flash';
const CHARTS = ['heatmap', 'causes', 'tokens', 'latency', 'cost'];

describe('agent names in the HTML report', () => {
  let state: string;
  let browser: Browser;

  beforeAll(async () => {
    // A missing browser fails the suite rather than skipping it: a skipped browser test proves nothing.
    if (!existsSync(CHROMIUM))
      throw new Error(`no Chromium at ${CHROMIUM}: install it (sudo apt-get install -y chromium, as .ci/run does) or set CRUCIBLE_CHROMIUM`);
    if (!existsSync(join(webAssetsDir(), 'assets/app.js'))) throw new Error('the web app is not built: run `npm run build:web` first');
    state = mkdtempSync(join(tmpdir(), 'crucible-names-'));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  });

  afterAll(async () => {
    await browser?.close();
    if (state) rmSync(state, { recursive: true, force: true });
  });

  it('shows both full names in the heatmap and every chart, with labels that differ', async () => {
    const usage = { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, requests: 3, costUsd: 0.01 };
    const attempts = ['js-slugify', 'py-median'].flatMap((taskId) =>
      [PLUS, FLASH].map((agent) =>
        attempt({ taskId, agent, verdict: agent === PLUS ? 'PASS' : 'FAIL', agentResult: { stopReason: 'submitted', turns: 4, toolCalls: 6, usage } }),
      ),
    );
    const indexed = attempts.map((a, index) => ({ ...a, index }));
    const runDir = writeRunDir(state, indexed);
    await writeReports({ runDir, summary: summaryOf(indexed), attempts: indexed, reporters: ['html'], env: {} });

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(join(runDir, 'report.html')).href);
    await page.getByTestId('run-page').waitFor();
    for (const name of CHARTS) {
      const figure = page.locator('figure', { has: page.locator(`svg[data-chart="${name}"]`) });
      const text = (await figure.textContent()) ?? '';
      expect(text, name).toContain(PLUS);
      expect(text, name).toContain(FLASH);
      // What is drawn (titles aside) names the two differently.
      const drawn = await figure.locator(`svg[data-chart="${name}"] text`).evaluateAll((nodes) =>
        nodes.map((n) =>
          [...n.childNodes]
            .filter((c) => c.nodeName !== 'title')
            .map((c) => c.textContent)
            .join(''),
        ),
      );
      const labels = drawn.filter((t) => t.includes('qwen') || t.includes('…'));
      expect(new Set(labels).size, `${name}: ${labels.join(' | ')}`).toBe(2);
    }
    await page.screenshot({ path: resolve('test-artifacts/e2e/report-names.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });
});
