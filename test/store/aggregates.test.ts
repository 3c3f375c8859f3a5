import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cause } from '../../src/core/types/index.js';
import { openHistory, type History } from '../../src/infra/store/index.js';
import { attempt, runMeta, tempDir } from './helpers/attempts.js';

const tmp = tempDir('aggregates');
let history: History;

type Row = [agent: string, taskId: string, cause: Cause, finishedAt: string];

/* Harness errors are counted in `errors` and never in `n`, the pass-rate denominator. */
const RUNS: Array<[runId: string, createdAt: string, rows: Row[]]> = [
  [
    'run-1',
    '2025-03-01T08:00:00.000Z',
    [
      ['oracle', 't1', 'passed', '2025-03-01T09:00:00.000Z'],
      ['oracle', 't1', 'passed', '2025-03-01T09:01:00.000Z'],
      ['oracle', 't2', 'tests_failed', '2025-03-01T09:02:00.000Z'],
      ['nop', 't1', 'harness_error', '2025-03-01T09:03:00.000Z'],
      ['nop', 't1', 'no_changes', '2025-03-01T09:04:00.000Z'],
      ['nop', 't2', 'no_changes', '2025-03-01T09:05:00.000Z'],
    ],
  ],
  [
    'run-2',
    '2025-03-02T08:00:00.000Z',
    [
      ['oracle', 't1', 'passed', '2025-03-02T09:00:00.000Z'],
      ['nop', 't1', 'passed', '2025-03-02T09:01:00.000Z'],
    ],
  ],
  [
    'run-3',
    '2025-03-02T23:00:00.000Z',
    [
      ['oracle', 't2', 'passed', '2025-03-02T23:59:00.000Z'],
      ['oracle', 't2', 'harness_error', '2025-03-03T00:01:00.000Z'],
    ],
  ],
];

beforeAll(() => {
  history = openHistory(join(tmp.dir, 'history.db'));
  for (const [runId, createdAt, rows] of RUNS) {
    history.recordRun(runMeta(runId, { createdAt }));
    rows.forEach(([agent, taskId, cause, finishedAt], index) => {
      history.recordAttempt(runId, attempt({ attemptId: `${runId}-${index}`, runId, agent, taskId, cause, finishedAt, index }));
    });
  }
});
afterAll(() => {
  history.close();
  tmp.cleanup();
});

describe('cells', () => {
  it('tallies each (agent, task) of a run', () => {
    expect(history.cells('run-1')).toEqual([
      { agent: 'nop', taskId: 't1', n: 1, passes: 0, errors: 1, providerErrors: 0 },
      { agent: 'nop', taskId: 't2', n: 1, passes: 0, errors: 0, providerErrors: 0 },
      { agent: 'oracle', taskId: 't1', n: 2, passes: 2, errors: 0, providerErrors: 0 },
      { agent: 'oracle', taskId: 't2', n: 1, passes: 0, errors: 0, providerErrors: 0 },
    ]);
    expect(history.cells('no-such-run')).toEqual([]);
  });
});

describe('trends by run', () => {
  it('returns the most recent runs, oldest first, per agent', () => {
    expect(history.trends({ bucket: 'run', limit: 2 })).toEqual([
      { bucket: 'run-2', at: '2025-03-02T08:00:00.000Z', agent: 'nop', taskId: null, n: 1, passes: 1, errors: 0, providerErrors: 0 },
      { bucket: 'run-2', at: '2025-03-02T08:00:00.000Z', agent: 'oracle', taskId: null, n: 1, passes: 1, errors: 0, providerErrors: 0 },
      { bucket: 'run-3', at: '2025-03-02T23:00:00.000Z', agent: 'oracle', taskId: null, n: 1, passes: 1, errors: 1, providerErrors: 0 },
    ]);
  });

  it('counts only runs where the filtered agent ran toward the limit', () => {
    const points = history.trends({ bucket: 'run', limit: 2, agent: 'nop' });
    expect(points.map((p) => [p.bucket, p.n, p.passes, p.errors])).toEqual([
      ['run-1', 2, 0, 1],
      ['run-2', 1, 1, 0],
    ]);
  });

  it('splits by task on request', () => {
    const points = history.trends({ bucket: 'run', limit: 1, agent: 'oracle', perTask: true, taskId: 't2' });
    expect(points).toEqual([{ bucket: 'run-3', at: '2025-03-02T23:00:00.000Z', agent: 'oracle', taskId: 't2', n: 1, passes: 1, errors: 1, providerErrors: 0 }]);
    const run1 = history.trends({ bucket: 'run', limit: 3, perTask: true }).filter((p) => p.bucket === 'run-1');
    expect(run1.map((p) => [p.agent, p.taskId, p.n, p.passes])).toEqual([
      ['nop', 't1', 1, 0],
      ['nop', 't2', 1, 0],
      ['oracle', 't1', 2, 2],
      ['oracle', 't2', 1, 0],
    ]);
  });
});

describe('trends by day', () => {
  it('buckets by the UTC day an attempt finished, oldest first', () => {
    expect(history.trends({ bucket: 'day', limit: 10 })).toEqual([
      { bucket: '2025-03-01', at: '2025-03-01T00:00:00.000Z', agent: 'nop', taskId: null, n: 2, passes: 0, errors: 1, providerErrors: 0 },
      { bucket: '2025-03-01', at: '2025-03-01T00:00:00.000Z', agent: 'oracle', taskId: null, n: 3, passes: 2, errors: 0, providerErrors: 0 },
      { bucket: '2025-03-02', at: '2025-03-02T00:00:00.000Z', agent: 'nop', taskId: null, n: 1, passes: 1, errors: 0, providerErrors: 0 },
      { bucket: '2025-03-02', at: '2025-03-02T00:00:00.000Z', agent: 'oracle', taskId: null, n: 2, passes: 2, errors: 0, providerErrors: 0 },
      { bucket: '2025-03-03', at: '2025-03-03T00:00:00.000Z', agent: 'oracle', taskId: null, n: 0, passes: 0, errors: 1, providerErrors: 0 },
    ]);
  });

  it('keeps only the most recent days that have matching attempts', () => {
    expect(new Set(history.trends({ bucket: 'day', limit: 2 }).map((p) => p.bucket))).toEqual(new Set(['2025-03-02', '2025-03-03']));
    expect(history.trends({ bucket: 'day', limit: 10, agent: 'nop' }).map((p) => p.bucket)).toEqual(['2025-03-01', '2025-03-02']);
    expect(history.trends({ bucket: 'day', limit: 1, agent: 'nop' }).map((p) => p.bucket)).toEqual(['2025-03-02']);
  });

  it('honours since and task filters, and is empty when nothing matches', () => {
    const points = history.trends({ bucket: 'day', limit: 10, taskId: 't1', perTask: true, since: '2025-03-01T09:02:00Z' });
    expect(points.map((p) => [p.bucket, p.agent, p.taskId, p.n, p.errors])).toEqual([
      ['2025-03-01', 'nop', 't1', 1, 1],
      ['2025-03-02', 'nop', 't1', 1, 0],
      ['2025-03-02', 'oracle', 't1', 1, 0],
    ]);
    expect(history.trends({ bucket: 'day', limit: 10, agent: 'nobody' })).toEqual([]);
    expect(history.trends({ bucket: 'run', limit: 10, agent: 'nobody' })).toEqual([]);
  });

  it('refuses an unbounded limit', () => {
    expect(() => history.trends({ bucket: 'day', limit: 0 })).toThrow(/limit/);
  });
});

describe('provider errors', () => {
  it('are unscored like harness errors and counted apart among the errors', () => {
    const own = openHistory(join(tmp.dir, 'provider.db'));
    try {
      own.recordRun(runMeta('run-p', { createdAt: '2025-04-01T08:00:00.000Z' }));
      const rows: Array<[Cause, string]> = [
        ['provider_error', '2025-04-01T09:00:00.000Z'],
        ['provider_error', '2025-04-01T09:01:00.000Z'],
        ['harness_error', '2025-04-01T09:02:00.000Z'],
        ['passed', '2025-04-01T09:03:00.000Z'],
      ];
      rows.forEach(([cause, finishedAt], index) => {
        own.recordAttempt('run-p', attempt({ attemptId: `run-p-${index}`, runId: 'run-p', agent: 'claude', taskId: 't1', cause, finishedAt, index }));
      });
      expect(own.cells('run-p')).toEqual([{ agent: 'claude', taskId: 't1', n: 1, passes: 1, errors: 3, providerErrors: 2 }]);
    } finally {
      own.close();
    }
  });
});
