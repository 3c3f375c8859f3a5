import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPORTER_NAMES_IN_CONFIG } from '../../src/domain/config/schema.js';
import { parseJUnit } from '../../src/domain/evidence/junit.js';
import { REPORT_DATA_ELEMENT_ID } from '../../src/features/report/html.js';
import { DEFAULT_REPORTERS, REPORTER_NAMES, writeReports, type ReportData } from '../../src/features/report/index.js';
import { webAssetsDir } from '../../src/features/report/web-assets.js';
import { useTempDirs } from '../helpers/tmp.js';
import { sampleAttempts, summaryOf, writeRunDir } from './fixtures.js';

const tempDir = useTempDirs();
const webBuilt = existsSync(join(webAssetsDir(), 'assets/app.js'));

function inlinedData(html: string): ReportData {
  const open = `<script type="application/json" id="${REPORT_DATA_ELEMENT_ID}">`;
  const start = html.indexOf(open) + open.length;
  return JSON.parse(html.slice(start, html.indexOf('</script>', start))) as ReportData;
}

describe('writeReports', () => {
  it('writes the default reports into the run directory, from the full attempt.json files', async () => {
    const state = tempDir();
    const attempts = sampleAttempts();
    const runDir = writeRunDir(state, attempts);
    // The engine hands over slimmed attempts; evidence must come back from attempt.json.
    const slim = attempts.map((a) => ({ ...a, checks: a.checks.map((c) => ({ ...c, evidence: {} })) }));
    const outcomes = await writeReports({ runDir, summary: summaryOf(attempts), attempts: slim, env: {} });
    expect(outcomes.map((o) => [o.reporter, o.error])).toEqual(DEFAULT_REPORTERS.map((r) => [r, undefined]));
    for (const f of ['report.md', 'report.html', 'results.sarif', 'results.junit.xml']) expect(existsSync(join(runDir, f))).toBe(true);
    expect(outcomes.find((o) => o.reporter === 'github')?.files).toEqual([]);
    expect(readFileSync(join(runDir, 'report.md'), 'utf8')).toContain('"file":"src/domain/config.py","line":12');
    expect(parseJUnit(readFileSync(join(runDir, 'results.junit.xml'), 'utf8')).cases).toHaveLength(attempts.length);
  });

  it('inlines the web app and the data in one file that fetches nothing', async () => {
    expect(webBuilt, 'the web bundle is missing: run `npm run build` (npm test does)').toBe(true);
    const state = tempDir();
    const attempts = sampleAttempts();
    const runDir = writeRunDir(state, attempts);
    await writeReports({ runDir, summary: summaryOf(attempts), attempts, reporters: ['html'], env: {} });
    const html = readFileSync(join(runDir, 'report.html'), 'utf8');
    expect(html.includes("default-src 'none'")).toBe(true);
    // Nothing loads from elsewhere (the e2e test proves it in a browser with the network cut).
    expect(/<script[^>]+\bsrc=|<link[^>]+rel="?stylesheet|url\(\s*['"]?https?:|@import/i.test(html)).toBe(false);
    // A hostile message cannot close the data element.
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    const data = inlinedData(html);
    expect(data.view.run.runId).toBe(attempts[0]?.runId);
    expect(data.view.reports).toEqual(['report.html']);
    expect(data.attempts).toHaveLength(attempts.length);
    const violation = data.attempts.find((a) => a.item.cause === 'policy_violation');
    expect(violation?.attempt.message).toContain('</script><script>alert(1)</script>');
    expect(violation?.artifacts.diff?.text).toContain('+    s = sorted(values)');
    expect(violation?.artifacts.tests?.map((t) => t.status)).toEqual(['failed', 'passed', 'passed']);
    expect(violation?.artifacts.trajectory).toMatchObject({ total: 3, unreadableLines: 1 });
    expect(violation?.artifacts.trajectory?.events[1]).toMatchObject({ type: 'tool_call', tool: 'read_file' });
  });

  it('keeps the HTML report small: past the budget, evidence stays on disk, failures first', async () => {
    const state = tempDir();
    const attempts = sampleAttempts();
    const runDir = writeRunDir(state, attempts);
    const outcomes = await writeReports({ runDir, summary: summaryOf(attempts), attempts, reporters: ['json'], env: {}, build: { artifactBudget: 3000 } });
    expect(outcomes[0]?.error).toBeUndefined();
    const data = JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as ReportData;
    const loaded = data.attempts.filter((a) => a.artifacts.omitted === undefined);
    expect(loaded.length).toBeGreaterThan(0);
    expect(loaded.length).toBeLessThan(attempts.length);
    expect(loaded.every((a) => a.item.verdict !== 'PASS')).toBe(true);
  });

  it('appends a step summary to GITHUB_STEP_SUMMARY', async () => {
    const state = tempDir();
    const attempts = sampleAttempts();
    const runDir = writeRunDir(state, attempts);
    const summaryFile = join(state, 'step-summary.md');
    writeFileSync(summaryFile, 'earlier step\n');
    await writeReports({ runDir, summary: summaryOf(attempts), attempts, reporters: ['github'], env: { GITHUB_STEP_SUMMARY: summaryFile } });
    const text = readFileSync(summaryFile, 'utf8');
    expect(text.startsWith('earlier step\n# Crucible run')).toBe(true);
    expect(text).toContain('### ❌ py-median');
    expect(text).not.toContain('### ✅');
  });

  it('a failing reporter is reported, and the others still write', async () => {
    const state = tempDir();
    const attempts = sampleAttempts();
    const runDir = writeRunDir(state, attempts);
    const outcomes = await writeReports({
      runDir,
      summary: summaryOf(attempts),
      attempts,
      reporters: ['html', 'sarif'],
      env: {},
      webDir: join(state, 'no-web'),
    });
    expect(outcomes[0]?.error).toMatch(/the web app is not built .*\(fix: run npm run build\)/);
    expect(outcomes[1]).toMatchObject({ reporter: 'sarif', files: [join(runDir, 'results.sarif')] });
  });

  it('the task-set schema accepts exactly the reporters that exist', () => {
    expect([...REPORTER_NAMES_IN_CONFIG]).toEqual([...REPORTER_NAMES]);
  });
});
