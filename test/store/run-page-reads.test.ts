/**
 * The reads a dashboard run page makes on a large run: the held-out cards as one grouped query,
 * the run's version without its statistics, and day trends answered from an index alone.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptResult, Cause } from '../../src/core/types/index.js';
import { heldOutCards } from '../../src/features/report/view.js';
import { openHistory, type History } from '../../src/infra/store/index.js';
import { attempt, runMeta, tempDir } from './helpers/attempts.js';

const tmp = tempDir('run-page-reads');
let history: History;

/** agent, cause, held-out passed of total (undefined: no held-out tests ran). */
const ROWS: Array<[string, Cause, [number, number] | undefined]> = [
  ['a', 'passed', [3, 3]],
  ['a', 'passed', [2, 3]],
  ['a', 'tests_failed', [1, 3]],
  ['a', 'tests_failed', undefined],
  ['b', 'passed', [0, 3]],
  ['b', 'regression', [3, 3]],
  ['b', 'passed', [0, 0]],
  ['c', 'passed', undefined],
];

function withHeldOut(a: AttemptResult, counts: [number, number] | undefined): AttemptResult {
  if (!counts || !a.tests) return a;
  return { ...a, heldOut: { ...a.tests, failToPass: { total: 0, passed: 0, failing: [] }, passToPass: { total: counts[1], passed: counts[0], failing: [] } } };
}

const attempts = ROWS.map(([agent, cause, counts], index) =>
  withHeldOut(attempt({ attemptId: `r1-${index}`, runId: 'r1', agent, cause, index, finishedAt: `2025-03-0${1 + (index % 3)}T10:00:00.000Z` }), counts),
);

beforeAll(() => {
  history = openHistory(join(tmp.dir, 'history.db'));
  history.recordRun(runMeta('r1'));
  history.recordAttempts(
    'r1',
    attempts.map((a) => ({ attempt: a })),
  );
});

afterAll(() => {
  history.close();
  tmp.cleanup();
});

describe('heldOut(runId)', () => {
  it('gives the cards the run page computed from every row, agent by agent', () => {
    const rows = history.listAttempts({ runId: 'r1', limit: 200 }).items;
    expect(rows).toHaveLength(ROWS.length);
    const expected = heldOutCards(rows.map((r) => ({ agent: r.agent, heldOut: r.heldOut, cause: r.cause })));
    expect(history.heldOut('r1')).toEqual(expected);
    expect(history.heldOut('r1')).toEqual([
      { agent: 'a', withHeldOut: 3, heldOutPassed: 1, passedPublicFailedHeldOut: 1 },
      { agent: 'b', withHeldOut: 2, heldOutPassed: 1, passedPublicFailedHeldOut: 1 },
    ]);
    expect(history.heldOut('no-such-run')).toEqual([]);
  });
});

describe('runVersion(runId)', () => {
  it('changes when the run records an attempt and when it finishes, and names its kind', () => {
    const live = history.runVersion('r1');
    expect(live?.kind).toBe('run');
    history.recordAttempt('r1', attempt({ attemptId: 'r1-extra', runId: 'r1', index: 99 }));
    const more = history.runVersion('r1');
    expect(more?.version).not.toBe(live?.version);
    expect(history.runVersion('r1')).toEqual(more);
    history.finishRun('r1', { finishedAt: '2025-03-04T00:00:00.000Z', executed: 9, stoppedEarly: false, counts: { PASS: 5, FAIL: 4, ERROR: 0 } });
    const finished = history.runVersion('r1');
    expect(finished?.version).not.toBe(more?.version);
    expect(history.runVersion('no-such-run')).toBeUndefined();
  });
});

describe('indexes of schema v5', () => {
  it('answers day trends and held-out cards from an index alone', () => {
    const db = new Database(join(tmp.dir, 'history.db'), { readonly: true });
    try {
      const plan = (sql: string): string =>
        db
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all()
          .map((r) => (r as { detail: string }).detail)
          .join('\n');
      expect(
        plan(`SELECT substr(a.finished_at, 1, 10) AS bucket, a.agent, count(*) FROM attempts a WHERE a.finished_at >= '2025' GROUP BY bucket, a.agent`),
      ).toContain('COVERING INDEX attempts_by_finished_tally');
      expect(
        plan(
          `SELECT a.agent, count(*), sum(a.held_out_passed = a.held_out_total) FROM attempts a WHERE a.run_id = 'r1' AND a.held_out_total > 0 GROUP BY a.agent`,
        ),
      ).toContain('COVERING INDEX attempts_held_out_by_run');
    } finally {
      db.close();
    }
  });
});
