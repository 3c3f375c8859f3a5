import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listItemOf } from '../../src/features/report/index.js';
import { slimAttempt } from '../../src/domain/run-dir/index.js';
import { openHistory } from '../../src/infra/store/index.js';
import { attemptFactsOf, baselineCellOf, failedCheckCount, gateCellOf, type AttemptFacts, type AttemptResult } from '../../src/core/types/index.js';
import { baselineFileSchema } from '../../src/features/baseline/index.js';
import { attempt, runMeta, tempDir } from '../store/helpers/attempts.js';

const tmp = tempDir('list-item');
afterAll(tmp.cleanup);

/** Attempts that differ in every fact a list item shows: usage and price, checks, held-out tests, timings. */
function attempts(): AttemptResult[] {
  const heldOut = attempt({ attemptId: 'held-out', runId: 'run-1', index: 3, checks: 5, costUsd: 0.5 });
  heldOut.heldOut = { ...heldOut.tests!, failToPass: { total: 1, passed: 1, failing: [] }, passToPass: { total: 4, passed: 2, failing: [] } };
  return [
    attempt({ attemptId: 'passed', runId: 'run-1', index: 0, checks: 3, costUsd: 0.0123 }),
    attempt({ attemptId: 'failed', runId: 'run-1', index: 1, cause: 'tests_failed', checks: 4, costUsd: null }),
    attempt({ attemptId: 'errored', runId: 'run-1', index: 2, cause: 'harness_error', checks: 0 }),
    heldOut,
  ];
}

describe('the attempt list item', () => {
  it('is the same from the record, the slim record and the history row of one attempt', () => {
    const history = openHistory(join(tmp.dir, 'h.db'));
    try {
      history.recordRun(runMeta('run-1'));
      const records = attempts();
      for (const a of records) history.recordAttempt('run-1', a);
      const rows = history.listAttempts({ runId: 'run-1', limit: 10 }).items;
      expect(rows.map((r) => r.attemptId)).toEqual(records.map((a) => a.attemptId));
      for (const [i, a] of records.entries()) {
        const fromRecord = listItemOf(a);
        expect(listItemOf(rows[i]!), a.attemptId).toEqual(fromRecord);
        expect(listItemOf(slimAttempt(a)), a.attemptId).toEqual(fromRecord);
      }
      // The facts themselves, so the agreement is not two wrong answers.
      const [passed, failed, errored, heldOut] = records.map(listItemOf);
      expect(passed).toMatchObject({ failedCheckCount: 1, tokens: 1200, costUsd: 0.0123, prepareMs: 100, agentMs: 50_001, heldOut: null });
      expect(failed).toMatchObject({ failedCheckCount: 2, costUsd: null, failToPass: { passed: 1, total: 2 } });
      expect(errored).toMatchObject({ failedCheckCount: 0, tokens: null, costUsd: null, failToPass: null, score: null });
      expect(heldOut).toMatchObject({ failedCheckCount: 2, heldOut: { passed: 3, total: 5 } });
    } finally {
      history.close();
    }
  });

  it('is read from the history row holding exactly the facts attemptFactsOf derives from the record', () => {
    const history = openHistory(join(tmp.dir, 'facts.db'));
    try {
      history.recordRun(runMeta('run-2'));
      const records = attempts().map((a) => ({ ...a, runId: 'run-2', attemptId: `${a.attemptId}-2` }));
      for (const a of records) history.recordAttempt('run-2', a);
      const rows = history.listAttempts({ runId: 'run-2', limit: 10 }).items;
      for (const [i, a] of records.entries()) {
        const facts = attemptFactsOf(a);
        const row = rows[i]!;
        const fromRow = Object.fromEntries(Object.keys(facts).map((k) => [k, row[k as keyof AttemptFacts]]));
        expect(fromRow, a.attemptId).toEqual(facts);
      }
    } finally {
      history.close();
    }
  });
});

describe('the baseline and gate cells of an attempt', () => {
  it('name the failed checks by id, each once and sorted, where the list item counts the failed results', () => {
    const a = attempts()[1]!;
    a.checks = [
      { id: 'tests', passed: false, severity: 'error', message: 'f2p', evidence: {} },
      { id: 'diff_size', passed: true, severity: 'warning', message: 'ok', evidence: {} },
      { id: 'regression', passed: false, severity: 'error', message: 'p2p', evidence: {} },
      { id: 'tests', passed: false, severity: 'error', message: 'again', evidence: {} },
    ];
    const cell = gateCellOf(a);
    expect(cell).toEqual({
      taskId: a.taskId,
      taskVersion: '1',
      agent: a.agent,
      trial: a.trial,
      verdict: 'FAIL',
      cause: 'tests_failed',
      failedChecks: ['regression', 'tests'],
    });
    expect(failedCheckCount(a)).toBe(3);
    expect(listItemOf(a).failedCheckCount).toBe(3);
    // What a baseline file stores of it is the cell, which the file's own schema accepts.
    const entry = { taskId: a.taskId, taskVersion: '1', agent: { spec: a.agent }, attempts: [baselineCellOf(cell)] };
    const file = { version: 1, createdAt: 'now', sourceRun: 'run-1', taskSet: 'tasks.yaml', trials: 1, entries: [entry] };
    expect(baselineFileSchema.parse(file).entries[0]!.attempts[0]).toEqual({
      trial: a.trial,
      verdict: 'FAIL',
      cause: 'tests_failed',
      failedChecks: ['regression', 'tests'],
    });
  });
});
