import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSummary } from '../../src/engine/summary.js';
import { runViewOf } from '../../src/features/report/data.js';
import { renderMarkdown } from '../../src/features/report/markdown.js';
import { guardOfRecordedRun } from '../../src/features/report/run-guard.js';
import { openHistory } from '../../src/infra/store/index.js';
import { aggregateRun } from '../../src/domain/stats/index.js';
import type { AttemptResult, GuardAgentCounts } from '../../src/core/types/index.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { guardedAttempts, recordRun, RUN_ID, sampleAttempts, summaryOf, writeRunDir } from './fixtures.js';

const tempDir = useTempDirs();

/** What guardedAttempts() adds up to, per agent, in order of first appearance. */
const EXPECTED: GuardAgentCounts[] = [
  { agent: 'oracle', mode: 'enforce', attempts: 2, incidents: 1, findings: 2, blocked: 0, stopped: 0, auditOnly: 2, detectionMs: { min: 80, max: 300 } },
  {
    agent: 'openai:gpt-4.1-mini',
    mode: 'enforce',
    attempts: 3,
    incidents: 2,
    findings: 4,
    blocked: 2,
    stopped: 1,
    auditOnly: 0,
    detectionMs: { min: 5, max: 40 },
  },
];

const viewOf = (attempts: AttemptResult[]) => runViewOf({ runDir: '/nowhere', summary: summaryOf(attempts), attempts });

const summaryFileOf = (attempts: AttemptResult[]) =>
  buildSummary({
    runId: RUN_ID,
    taskSet: 'tasks.yaml',
    createdAt: '2026-11-30T10:15:00.000Z',
    configHash: 'c0ffee',
    planned: attempts.length,
    attempts,
    reused: 0,
    ended: 'completed',
    stats: aggregateRun(attempts),
  });

/** A run directory and history as the engine leaves them; `guard` goes into plan.json's settings as `run --guard` puts it. */
function recorded(attempts: AttemptResult[], guard: 'enforce' | undefined, finished = true): { state: string; runDir: string } {
  const state = tempDir();
  const runDir = writeRunDir(state, attempts);
  if (finished) writeFileSync(join(runDir, 'summary.json'), JSON.stringify(summaryFileOf(attempts)));
  else writeFileSync(join(runDir, 'summary.json'), '{"cut off');
  writeFileSync(join(runDir, 'plan.json'), JSON.stringify({ runId: RUN_ID, settings: { sandbox: 'bwrap', ...(guard ? { guard } : {}) } }));
  recordRun(state, attempts);
  return { state, runDir };
}

describe('online guard counts in the run summary and reports', () => {
  it('the report view and the Markdown report count incidents, blocked, stopped and audit-only per agent', async () => {
    const view = viewOf(guardedAttempts());
    expect(view.guard).toEqual(EXPECTED);
    const md = renderMarkdown(view, guardedAttempts());
    expect(md).toContain('## Online guard');
    expect(md).toContain('| **openai:gpt-4.1-mini** | enforce | 2 of 3 | 4 | 1 | 2 | 0 | 5–40 ms |');
    expect(md).toContain('| **oracle** | enforce | 1 of 2 | 2 | 0 | 0 | 2 | 80–300 ms |');
  });

  it('an unguarded run has no guard counts and no section', async () => {
    const view = viewOf(sampleAttempts());
    expect(view.guard).toBeUndefined();
    expect(renderMarkdown(view, sampleAttempts())).not.toContain('Online guard');
  });

  it('summary.json carries the counts only for a guarded run', async () => {
    expect(summaryFileOf(guardedAttempts()).guard).toEqual(EXPECTED);
    expect('guard' in summaryFileOf(sampleAttempts())).toBe(false);
  });

  it('a recorded run: summary.json when finished, the attempt records while live, nothing without --guard', async () => {
    const finished = recorded(guardedAttempts(), 'enforce');
    const history = openHistory(join(finished.state, 'history.db'), { readonly: true });
    try {
      // Rows are not read for a finished run: summary.json has the counts.
      expect(guardOfRecordedRun(finished.runDir, history, [])).toEqual(EXPECTED);
    } finally {
      history.close();
    }

    const live = recorded(guardedAttempts(), 'enforce', false);
    const liveHistory = openHistory(join(live.state, 'history.db'), { readonly: true });
    try {
      const rows = guardedAttempts().map((a) => ({ attemptId: a.attemptId }));
      expect(guardOfRecordedRun(live.runDir, liveHistory, rows)).toEqual(EXPECTED);
    } finally {
      liveHistory.close();
    }

    const plain = recorded(sampleAttempts(), undefined);
    const plainHistory = openHistory(join(plain.state, 'history.db'), { readonly: true });
    try {
      expect(guardOfRecordedRun(plain.runDir, plainHistory, sampleAttempts())).toBeUndefined();
    } finally {
      plainHistory.close();
    }
  });

  it('crucible show --json carries them for a guarded run and leaves them out otherwise', async () => {
    const guarded = recorded(guardedAttempts(), 'enforce');
    const shown = await runCli(['show', RUN_ID, '--json', '--out', guarded.state]);
    expect(shown.status, shown.stderr).toBe(0);
    expect((JSON.parse(shown.stdout) as { guard?: unknown }).guard).toEqual(EXPECTED);
    const text = await runCli(['show', RUN_ID, '--out', guarded.state]);
    expect(text.stdout).toContain(
      'guard enforce: 2 of 3 attempt(s) with incidents (4 finding(s)): 1 stopped, 2 command(s) blocked, 0 audit-only, detected in 5–40 ms',
    );

    const plain = recorded(sampleAttempts(), undefined);
    const plainShown = await runCli(['show', RUN_ID, '--json', '--out', plain.state]);
    expect(plainShown.status, plainShown.stderr).toBe(0);
    expect('guard' in (JSON.parse(plainShown.stdout) as object)).toBe(false);
  });
});
