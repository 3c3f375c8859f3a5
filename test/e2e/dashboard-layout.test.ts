import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptResult } from '../../src/core/types/index.js';
import { failureFacts } from '../../src/domain/failures/failure-facts.js';
import { failurePatterns } from '../../src/domain/failures/failure-patterns.js';
import { attempt, recordRun, writeRunDir } from '../report/fixtures.js';
import { startView, type RunningView } from '../helpers/view.js';

/*
 * The dashboard's layout in Chromium at a phone's, a laptop's and a wide screen's width, on a
 * history whose agent names were picked to collide: two agents with the same pass rate and nearly
 * the same cost (their points and trend ends sit on top of each other), a model next to a
 * reference agent whose cost is unknown, and reference agents (oracle, nop) that make no model
 * request. Every label drawn in a chart is measured in the page (getBoundingClientRect): no two
 * may intersect, none may leave its chart, and none may be cut with `…` (every name here fits).
 */

const CHROMIUM = process.env.CRUCIBLE_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = resolve('test-artifacts/e2e');
const MODEL = 'openai:gpt-4.1-mini';
const LONG = 'openai-compatible:qwen3-coder-plus';
const AGENTS = [MODEL, 'oracle', 'nop', 'claude-code', 'codex', LONG];
const TASKS = ['js-slugify', 'py-median', 'py-roman', 'js-csv-quoting'];
const TRIALS = 3;
const VIEWPORTS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'laptop', width: 1280, height: 800 },
  { name: 'wide', width: 1920, height: 1080 },
];
const RUNS = ['20261128-090000-aaaa', '20261129-090000-bbbb', '20261130-090000-cccc'];
const REFERENCE_RUN = '20261201-090000-dddd';
/** A page on a loaded machine may take a while to settle: wait for the DOM, with a generous ceiling. */
const POLL = { timeout: 60_000 };

const usage = (costUsd: number, inputTokens: number) => ({
  inputTokens,
  outputTokens: Math.round(inputTokens / 5),
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  requests: 4,
  costUsd,
});

/** One attempt of `agent`, shaped as the engine records it; reference agents report no usage. */
function attemptOf(runId: string, agent: string, taskId: string, trial: number, index: number): AttemptResult {
  const id = `${taskId}.${agent.replace(/[^A-Za-z0-9]/g, '-')}.${trial}.${runId.slice(-4)}`;
  if (agent === 'nop') {
    // What the real nop leaves: nothing changed, so no_changes, with the score the grader gives it.
    return attempt({
      attemptId: id,
      runId,
      taskId,
      agent,
      trial,
      index,
      verdict: 'FAIL',
      cause: 'no_changes',
      message: 'the agent changed nothing',
      score: 50,
      diff: { files: [], filesChanged: 0, added: 0, deleted: 0 },
      agentResult: { stopReason: 'completed' },
    });
  }
  if (agent === 'oracle') return attempt({ attemptId: id, runId, taskId, agent, trial, index, agentResult: { stopReason: 'completed' } });
  // claude-code and codex: the same pass rate and nearly the same cost, so their marks coincide.
  const half = agent === 'claude-code' || agent === 'codex';
  const pass = half ? TASKS.indexOf(taskId) % 2 === 0 : agent === MODEL || trial > 0;
  const cost = agent === MODEL ? 0.0004 : agent === 'claude-code' ? 0.012 : agent === 'codex' ? 0.0125 : 0.03;
  return attempt({
    attemptId: id,
    runId,
    taskId,
    agent,
    trial,
    index,
    verdict: pass ? 'PASS' : 'FAIL',
    agentResult: { stopReason: 'completed', turns: 5, toolCalls: 7, usage: usage(cost, agent === 'codex' ? 21_000 : 20_000) },
  });
}

function runAttempts(runId: string, agents: readonly string[]): AttemptResult[] {
  let index = 0;
  return TASKS.flatMap((taskId) => agents.flatMap((agent) => Array.from({ length: TRIALS }, (_, trial) => attemptOf(runId, agent, taskId, trial, index++))));
}

/** A run as the engine leaves it, failure patterns in summary.json included. */
function writeRun(state: string, runId: string, createdAt: string, agents: readonly string[]): AttemptResult[] {
  const attempts = runAttempts(runId, agents);
  const runDir = writeRunDir(state, attempts, runId);
  const table = failurePatterns(
    attempts.map((a) => ({
      attemptId: a.attemptId,
      agent: a.agent,
      verdict: a.verdict,
      facts: failureFacts({ trajectory: [], commands: [], changedFiles: [], failToPass: [], allowedPaths: [], stopReason: 'max_turns' }),
      recorded: a.agent !== 'oracle' && a.agent !== 'nop',
    })),
  );
  const summaryFile = join(runDir, 'summary.json');
  writeFileSync(summaryFile, JSON.stringify({ ...JSON.parse(readFileSync(summaryFile, 'utf8')), createdAt, failurePatterns: table }));
  recordRun(state, attempts, runId, createdAt);
  return attempts;
}

/**
 * Every problem with the text drawn in the page's charts: two labels that intersect, a label that
 * leaves its chart, a label cut with `…`. Measured by the browser, so it sees what a reader sees.
 */
function labelProblems(page: Page): Promise<string[]> {
  return page.locator('svg[data-chart]').evaluateAll((svgs) => {
    const problems: string[] = [];
    for (const svg of svgs) {
      const chart = svg.getAttribute('data-chart') ?? '?';
      const box = svg.getBoundingClientRect();
      const labels = [...svg.querySelectorAll('text')]
        .map((t) => ({
          text: [...t.childNodes]
            .filter((c) => c.nodeName !== 'title')
            .map((c) => c.textContent ?? '')
            .join('')
            .trim(),
          r: t.getBoundingClientRect(),
        }))
        .filter((l) => l.text !== '' && l.r.width > 0);
      for (const l of labels) {
        if (l.text.includes('…')) problems.push(`${chart}: "${l.text}" is cut`);
        if (l.r.left < box.left - 1 || l.r.right > box.right + 1 || l.r.top < box.top - 1 || l.r.bottom > box.bottom + 1)
          problems.push(`${chart}: "${l.text}" runs outside the chart`);
      }
      labels.forEach((a, i) => {
        for (const b of labels.slice(i + 1)) {
          const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
          const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
          if (w > 0.5 && h > 0.5) problems.push(`${chart}: "${a.text}" overprints "${b.text}"`);
        }
      });
    }
    return problems;
  });
}

// Browser steps on a loaded 2-core machine: generous ceilings, never a timed assertion.
describe('dashboard layout: labels that never overprint, at three widths', { timeout: 180_000 }, () => {
  let state: string;
  let view: RunningView | undefined;
  let browser: Browser;
  let nopAttempt: string;
  const problems: string[] = [];

  const open = async (path: string, viewport: { width: number; height: number }): Promise<Page> => {
    const page = await browser.newPage({ viewport });
    page.setDefaultTimeout(120_000);
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    await page.goto(`${view?.url ?? ''}${path}`);
    return page;
  };
  const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `layout-${name}.png`), fullPage: true });

  beforeAll(async () => {
    // A missing browser fails the suite rather than skipping it: a skipped browser test proves nothing.
    if (!existsSync(CHROMIUM))
      throw new Error(`no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium, as .ci/run does) or set CRUCIBLE_CHROMIUM`);
    if (!existsSync('dist/web/assets/app.js')) throw new Error('the web app is not built: run `npm run build` first');
    mkdirSync(ARTIFACTS, { recursive: true });
    state = mkdtempSync(join(tmpdir(), 'crucible-layout-'));
    RUNS.forEach((runId, i) => {
      const attempts = writeRun(state, runId, `2026-11-${28 + i}T09:00:00.000Z`, AGENTS);
      nopAttempt = attempts.find((a) => a.agent === 'nop')?.attemptId ?? '';
    });
    writeRun(state, REFERENCE_RUN, '2026-12-01T09:00:00.000Z', ['oracle', 'nop']);
    view = await startView(state);
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
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await view?.stop();
    if (state) rmSync(state, { recursive: true, force: true });
  });

  for (const viewport of VIEWPORTS) {
    it(`run page at ${viewport.name} width (${viewport.width}px): every chart's labels apart, whole and inside`, async () => {
      const page = await open(`#/runs/${RUNS[2]}`, viewport);
      await page.getByTestId('run-page').waitFor();
      for (const chart of ['heatmap', 'cost', 'causes', 'tokens', 'latency']) await page.locator(`svg[data-chart="${chart}"]`).waitFor();
      // The panel charts are drawn at their panel's width (300 px at least) once the page has laid them out.
      const fitted = () =>
        page
          .locator('.grid-2 svg[data-chart]')
          .evaluateAll((svgs) => svgs.every((s) => Number(s.getAttribute('width')) <= Math.max(300, s.parentElement?.clientWidth ?? 0)));
      await expect.poll(fitted, POLL).toBe(true);
      await shot(page, `run-${viewport.name}`);
      expect(await labelProblems(page)).toEqual([]);
      // Every name fits somewhere on the page, so none needs a legend of shortened names.
      expect(await page.locator('[data-legend="names"]').count()).toBe(0);
      // The page itself never scrolls sideways; a wide table or chart scrolls inside its panel.
      expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
      await page.close();
    });

    it(`trends page at ${viewport.name} width (${viewport.width}px): series labels apart, whole and inside`, async () => {
      const page = await open('#/trends?bucket=run', viewport);
      await page.getByTestId('trends-page').waitFor();
      await expect.poll(() => page.locator('svg[data-chart="trend"] polyline').count(), POLL).toBe(AGENTS.length);
      await shot(page, `trends-${viewport.name}`);
      expect(await labelProblems(page)).toEqual([]);
      // Every series is named in full in the chart's figure, drawn or in its legend.
      const figure = (await page.locator('figure', { has: page.locator('svg[data-chart="trend"]') }).textContent()) ?? '';
      for (const agent of AGENTS) expect(figure).toContain(agent);
      await page.close();
    });
  }

  it('failure patterns: a count per pattern, the attempts folded in a list that opens', async () => {
    const page = await open(`#/runs/${RUNS[2]}`, VIEWPORTS[1]!);
    const panel = page.getByTestId('failure-patterns');
    await panel.waitFor();
    const lists = panel.locator('details');
    expect(await lists.count()).toBeGreaterThan(0);
    // Folded: no attempt link shows until its list is opened.
    expect(await panel.locator('a.pattern-attempt-link:visible').count()).toBe(0);
    const first = lists.first();
    const summary = (await first.locator('summary').textContent()) ?? '';
    const count = Number(/^(\d+) attempts?$/.exec(summary.trim())?.[1]);
    expect(count, summary).toBeGreaterThan(0);
    await first.locator('summary').click();
    // The server sends a pattern's first 20 ids (src/server/run-views.ts); the count says how many.
    await expect.poll(() => first.locator('a.pattern-attempt-link:visible').count(), POLL).toBe(Math.min(count, 20));
    const href = await first.locator('a.pattern-attempt-link').first().getAttribute('href');
    expect(href).toMatch(/^#\/attempts\//);
    await page.close();
  });

  it('a run of reference agents only folds the cost and token panels into one line each', async () => {
    const page = await open(`#/runs/${REFERENCE_RUN}`, VIEWPORTS[1]!);
    await page.getByTestId('run-page').waitFor();
    await page.locator('svg[data-chart="latency"]').waitFor();
    expect(await page.locator('svg[data-chart="cost"]').count()).toBe(0);
    expect(await page.locator('svg[data-chart="tokens"]').count()).toBe(0);
    const folded = page.locator('[data-folded]');
    expect((await folded.allTextContents()).join(' | ')).toMatch(/cost.*oracle.*nop|cost.*nop.*oracle/is);
    expect(await labelProblems(page)).toEqual([]);
    await shot(page, 'reference-run');
    await page.close();
  });

  it('a run with models lists the reference agents that reported no tokens in one line, not as empty rows', async () => {
    const page = await open(`#/runs/${RUNS[2]}`, VIEWPORTS[1]!);
    const tokens = page.locator('figure', { has: page.locator('svg[data-chart="tokens"]') });
    await tokens.waitFor();
    const drawn = (await tokens.locator('svg').textContent()) ?? '';
    expect(drawn).toContain(MODEL);
    expect(drawn).not.toContain('oracle');
    expect(drawn).not.toContain('not reported');
    expect(await tokens.locator('[data-unreported]').textContent()).toMatch(/oracle.*nop|nop.*oracle/);
    await page.close();
  });

  it('a nop attempt that changed nothing shows no score', async () => {
    const page = await open(`#/attempts/${nopAttempt}`, VIEWPORTS[1]!);
    await page.getByTestId('attempt-page').waitFor();
    expect((await page.getByTestId('attempt-page').textContent()) ?? '').toContain('no_changes');
    expect(await page.locator('dt', { hasText: /^score$/ }).count()).toBe(0);
    await page.close();
  });

  it('no page threw or logged an error', () => {
    expect(problems).toEqual([]);
  });
});
