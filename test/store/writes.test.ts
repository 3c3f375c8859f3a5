import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { HistoryError, openHistory, type History } from '../../src/infra/store/index.js';
import { attempt, runMeta, tempDir } from './helpers/attempts.js';

const tmp = tempDir('writes');
afterAll(tmp.cleanup);

let history: History;
let dbCount = 0;
beforeEach(() => {
  history = openHistory(join(tmp.dir, `w${dbCount++}.db`));
  history.recordRun(runMeta('run-1'));
  return () => history.close();
});

describe('recordRun', () => {
  it('upserts: recording again (a resume) updates the start facts and clears the old finish', () => {
    history.finishRun('run-1', {
      finishedAt: '2025-03-01T11:00:00Z',
      executed: 4,
      stoppedEarly: false,
      counts: { PASS: 3, FAIL: 1, ERROR: 0 },
    });
    history.recordRun(runMeta('run-1', { planned: 8, agents: ['oracle'] }));
    const run = history.getRun('run-1');
    expect(history.countRuns()).toBe(1);
    expect(run).toMatchObject({ planned: 8, agents: ['oracle'], finishedAt: null, counts: null, stoppedEarly: false });
  });

  it('normalises timestamps to UTC and rejects non-timestamps', () => {
    history.recordRun(runMeta('run-tz', { createdAt: '2025-03-01T12:00:00+02:00' }));
    expect(history.getRun('run-tz')?.createdAt).toBe('2025-03-01T10:00:00.000Z');
    expect(() => history.recordRun(runMeta('run-bad', { createdAt: 'yesterday' }))).toThrow(/createdAt/);
  });
});

describe('finishRun', () => {
  it('stores counts and stats, and tells an unknown run apart', () => {
    const stats = { passRate: { oracle: { rate: 0.75, low: 0.3, high: 0.95 } } };
    history.finishRun('run-1', {
      finishedAt: '2025-03-01T11:00:00.000Z',
      executed: 3,
      stoppedEarly: true,
      counts: { PASS: 2, FAIL: 1, ERROR: 0 },
      stats,
    });
    expect(history.getRun('run-1')).toMatchObject({
      finishedAt: '2025-03-01T11:00:00.000Z',
      executed: 3,
      stoppedEarly: true,
      counts: { PASS: 2, FAIL: 1, ERROR: 0 },
      stats,
    });
    expect(() =>
      history.finishRun('nope', { finishedAt: '2025-03-01T11:00:00Z', executed: 0, stoppedEarly: false, counts: { PASS: 0, FAIL: 0, ERROR: 0 } }),
    ).toThrow(HistoryError);
  });
});

describe('recordAttempt', () => {
  it('round-trips the full attempt, its checks and usage', () => {
    const a = attempt({ attemptId: 'att-1', runId: 'run-1', costUsd: 0.0123, checks: 3 });
    history.recordAttempt('run-1', a, { repoKey: 'github.com/x/y', category: 'bugfix', difficulty: 'hard' });
    const got = history.getAttempt('att-1');
    expect(got?.attempt).toEqual(a);
    expect(got?.checks).toEqual(a.checks);
    expect(got).toMatchObject({
      runId: 'run-1',
      planIndex: 0,
      score: 100,
      prepareMs: 100,
      agentMs: 50_001,
      failToPass: { passed: 2, total: 2 },
      passToPass: { passed: 3, total: 3 },
      heldOut: null,
      diff: { filesChanged: 2, added: 10, deleted: 3 },
      stopReason: 'end_turn',
      turns: 7,
      toolCalls: 12,
      repoKey: 'github.com/x/y',
      category: 'bugfix',
      difficulty: 'hard',
      usage: { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 50, cacheWriteTokens: 10, reasoningTokens: 5, requests: 3, costUsd: 0.0123 },
    });
  });

  it('is idempotent: the same attempt twice is one row, with checks replaced not doubled', () => {
    history.recordAttempt('run-1', attempt({ attemptId: 'att-1', runId: 'run-1', checks: 3 }));
    history.recordAttempt('run-1', attempt({ attemptId: 'att-1', runId: 'run-1', checks: 3 }));
    expect(history.countAttempts()).toBe(1);
    expect(history.getAttempt('att-1')?.checks).toHaveLength(3);

    // A re-recorded attempt may change: the latest record wins, fully.
    history.recordAttempt('run-1', attempt({ attemptId: 'att-1', runId: 'run-1', cause: 'tests_failed', checks: 1 }));
    const got = history.getAttempt('att-1');
    expect(got?.verdict).toBe('FAIL');
    expect(got?.checks).toHaveLength(1);
    expect(got?.usage).toBeNull();
    expect(history.countAttempts()).toBe(1);
  });

  it('keeps an unknown cost as null, distinct from a known zero', () => {
    history.recordAttempt('run-1', attempt({ attemptId: 'unpriced', runId: 'run-1', costUsd: null }));
    history.recordAttempt('run-1', attempt({ attemptId: 'free', runId: 'run-1', costUsd: 0 }));
    history.recordAttempt('run-1', attempt({ attemptId: 'no-usage', runId: 'run-1' }));
    expect(history.getAttempt('unpriced')?.usage?.costUsd).toBeNull();
    expect(history.getAttempt('unpriced')?.usage?.inputTokens).toBe(1000);
    expect(history.getAttempt('free')?.usage?.costUsd).toBe(0);
    expect(history.getAttempt('no-usage')?.usage).toBeNull();
    const listed = history.listAttempts({ runId: 'run-1', limit: 10 }).items.find((r) => r.attemptId === 'unpriced');
    expect(listed?.usage?.costUsd).toBeNull();
  });

  it('stores a harness error without score or tests', () => {
    history.recordAttempt('run-1', attempt({ attemptId: 'err', runId: 'run-1', cause: 'harness_error' }));
    expect(history.getAttempt('err')).toMatchObject({ verdict: 'ERROR', cause: 'harness_error', score: null, failToPass: null });
  });

  it('refuses an attempt whose runId disagrees, and writes nothing of it', () => {
    history.recordRun(runMeta('run-2'));
    expect(() => history.recordAttempt('run-2', attempt({ attemptId: 'att-x', runId: 'run-1' }))).toThrow(/belongs to run run-1/);
    expect(history.getAttempt('att-x')).toBeUndefined();
  });

  it('recordAttempts is all or nothing', () => {
    const good = attempt({ attemptId: 'ok-1', runId: 'run-1' });
    const bad = { ...attempt({ attemptId: 'bad-1', runId: 'run-1' }), finishedAt: 'not a time' };
    expect(() => history.recordAttempts('run-1', [{ attempt: good }, { attempt: bad }])).toThrow(/finishedAt/);
    expect(history.countAttempts()).toBe(0);
  });
});
