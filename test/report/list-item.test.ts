import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listItemOf } from '../../src/features/report/index.js';
import { slimAttempt } from '../../src/domain/run-dir/index.js';
import { openHistory } from '../../src/infra/store/index.js';
import type { AttemptResult } from '../../src/core/types/index.js';
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
      expect(passed).toMatchObject({ failedChecks: 1, tokens: 1200, costUsd: 0.0123, prepareMs: 100, agentMs: 50_001, heldOut: null });
      expect(failed).toMatchObject({ failedChecks: 2, costUsd: null, failToPass: { passed: 1, total: 2 } });
      expect(errored).toMatchObject({ failedChecks: 0, tokens: null, costUsd: null, failToPass: null, score: null });
      expect(heldOut).toMatchObject({ failedChecks: 2, heldOut: { passed: 3, total: 5 } });
    } finally {
      history.close();
    }
  });
});
