import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { reconcile } from '../../src/engine/resume.js';
import { verifyRunDir } from '../../src/domain/manifest/index.js';
import { buildReportData, loadAttemptArtifacts, writeReports } from '../../src/features/report/index.js';
import {
  attemptDir,
  findRunDir,
  listAttemptDirs,
  peekSummaryFile,
  readAttemptBytes,
  readAttemptRecord,
  readCheckpoint,
  readPlanFile,
} from '../../src/domain/run-dir/index.js';
import { locateTrace, replayAttemptDir, verifyAttemptTrace } from '../../src/domain/trace/index.js';
import type { AttemptResult, RunSummary } from '../../src/core/types/index.js';

/*
 * A run written by main before src/domain/run-dir/ existed (`crucible run examples/tasks.yaml -t js-slugify
 * -a oracle -a nop`, reports left out since they are derived). The layout is a stored format: every
 * reader must still take it as it is, byte for byte.
 */
const FIXTURE = join(import.meta.dirname, '../fixtures/run-dir/main-2026-12');
const RUN_ID = '20261202-013227-1fca';

const scratch = mkdtempSync(join(tmpdir(), 'crucible-old-layout-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy to work on: resume may rewrite the checkpoint, reports are written into the run. */
function copyOfFixture(name: string): string {
  const state = join(scratch, name);
  cpSync(FIXTURE, state, { recursive: true });
  return state;
}

describe('a run directory written by an earlier main', () => {
  it('is found by prefix, and its plan, checkpoint, records and summary read', async () => {
    const { runId, runDir } = await findRunDir(FIXTURE, '20261202-0132');
    expect(runId).toBe(RUN_ID);
    const plan = await readPlanFile(runDir, runId);
    expect(plan.agents).toEqual(['oracle', 'nop']);
    expect(plan.attempts.map((a) => a.attemptId).sort()).toEqual(['js-slugify.nop.0.467519e400', 'js-slugify.oracle.0.38a6bd09e9']);
    const { entries, malformed } = await readCheckpoint(runDir);
    expect(malformed).toBe(0);
    expect(entries.map((e) => [e.agent, e.verdict, e.cause])).toEqual([
      ['nop', 'FAIL', 'no_changes'],
      ['oracle', 'PASS', 'passed'],
    ]);
    for (const entry of entries) {
      // The checkpoint's hash is what resume holds attempt.json to.
      expect((await readAttemptBytes(runDir, entry.attemptId))?.hash).toBe(entry.sha256);
      const record = await readAttemptRecord(runDir, entry.attemptId);
      expect(record?.verdict).toBe(entry.verdict);
    }
    expect(peekSummaryFile(runDir)?.counts).toEqual({ PASS: 1, FAIL: 1, ERROR: 0 });
    expect((await listAttemptDirs(runDir)).map((d) => d.slice(runDir.length + 1))).toEqual([
      'attempts/js-slugify.nop.0.467519e400',
      'attempts/js-slugify.oracle.0.38a6bd09e9',
    ]);
  });

  it('resumes with every recorded attempt reused and nothing to rerun', async () => {
    const { runId, runDir } = await findRunDir(copyOfFixture('resume'), RUN_ID);
    const plan = await readPlanFile(runDir, runId);
    const before = await readCheckpoint(runDir);
    const seen: string[] = [];
    const outcome = await reconcile(runDir, plan, (a) => seen.push(a.attemptId));
    expect(outcome.rerun).toEqual([]);
    expect(outcome.superseded).toEqual([]);
    expect(outcome.malformed).toBe(0);
    expect([...outcome.reused.keys()]).toEqual(plan.attempts.map((a) => a.attemptId));
    expect(seen).toEqual(plan.attempts.map((a) => a.attemptId));
    // The checkpoint was written in finishing order; resume keeps the same lines, in plan order.
    const after = await readCheckpoint(runDir);
    expect(after.entries).toEqual([...before.entries].sort((x, y) => x.index - y.index));
  });

  it('gives `report` and `show` their records and evidence', async () => {
    const { runDir } = await findRunDir(copyOfFixture('report'), RUN_ID);
    const summary = peekSummaryFile(runDir) as RunSummary;
    const { entries } = await readCheckpoint(runDir);
    const attempts = (await Promise.all(entries.map((e) => readAttemptRecord(runDir, e.attemptId)))) as AttemptResult[];
    const data = await buildReportData({ runDir, summary, attempts });
    const oracle = data.attempts.find((v) => v.item.agent === 'oracle');
    expect(oracle?.item).toMatchObject({ verdict: 'PASS', failToPass: { passed: 1, total: 1 }, filesChanged: 1, failedCheckCount: 0 });
    expect(oracle?.artifacts.diff?.text).toContain('slugify');
    expect(oracle?.artifacts.tests?.length).toBeGreaterThan(0);
    expect(oracle?.artifacts.commands?.items.length).toBeGreaterThan(0);
    const nop = await loadAttemptArtifacts(attemptDir(runDir, 'js-slugify.nop.0.467519e400'));
    expect(nop.diff?.text).toBe('');
    const outcomes = await writeReports({ runDir, summary, attempts, reporters: ['json', 'markdown'], env: {} });
    expect(outcomes.map((o) => o.error)).toEqual([undefined, undefined]);
    expect(readFileSync(join(runDir, 'report.md'), 'utf8')).toContain('js-slugify');
  });

  it('passes `trace verify`, `trace replay` and `manifest verify` as written', async () => {
    const target = await locateTrace(RUN_ID, FIXTURE, true);
    expect(target.attemptDirs).toHaveLength(2);
    for (const dir of target.attemptDirs) {
      expect((await verifyAttemptTrace(dir)).chain.ok).toBe(true);
      const replay = await replayAttemptDir(dir);
      expect(replay.problem).toBeUndefined();
      expect(replay.match).toBe(true);
    }
    const { runDir } = await findRunDir(FIXTURE, RUN_ID);
    const verified = await verifyRunDir(runDir);
    expect(verified.problems).toEqual([]);
    expect(verified.attempts).toBe(2);
  });
});
