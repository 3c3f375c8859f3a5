import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AmbiguousIdError,
  HistoryError,
  MAX_PAGE_SIZE,
  openHistory,
  parseSince,
  type AttemptRow,
  type History,
  type Page,
} from '../../src/infra/store/index.js';
import { attempt, runMeta, tempDir } from './helpers/attempts.js';

const tmp = tempDir('reads');
let history: History;
const HOUR = 3_600_000;
const recentFinish = new Date(Date.now() - HOUR).toISOString();

/*
 * run-a (Mar 1) and run-b (Mar 2): oracle and nop on t1, t2; run-c (Mar 3): claude on t1 with a
 * harness error; run-now (an hour ago): one attempt, for duration-based `since`.
 */
beforeAll(() => {
  history = openHistory(join(tmp.dir, 'history.db'));
  let minute = 0;
  for (const [runId, day] of [
    ['run-a', '01'],
    ['run-b', '02'],
  ] as const) {
    history.recordRun(runMeta(runId, { createdAt: `2025-03-${day}T09:00:00.000Z` }));
    let index = 0;
    for (const agent of ['oracle', 'nop']) {
      for (const taskId of ['t1', 't2']) {
        const finishedAt = `2025-03-${day}T10:${String(minute++).padStart(2, '0')}:00.000Z`;
        const cause = agent === 'oracle' ? 'passed' : 'no_changes';
        history.recordAttempt(runId, attempt({ attemptId: `${runId}-${index}`, runId, agent, taskId, index: index++, cause, finishedAt }));
      }
    }
  }
  history.recordRun(runMeta('run-c', { createdAt: '2025-03-03T09:00:00.000Z', agents: ['claude'] }));
  history.recordAttempt(
    'run-c',
    attempt({ attemptId: 'run-c-0', runId: 'run-c', agent: 'claude', taskId: 't1', cause: 'harness_error', finishedAt: '2025-03-03T10:00:00.000Z' }),
  );
  history.recordRun(runMeta('run-now', { createdAt: recentFinish, agents: ['claude'] }));
  history.recordAttempt('run-now', attempt({ attemptId: 'run-now-0', runId: 'run-now', agent: 'claude', taskId: 't2', finishedAt: recentFinish }));
});
afterAll(() => {
  history.close();
  tmp.cleanup();
});

const ids = (page: Page<AttemptRow>): string[] => page.items.map((r) => r.attemptId);

describe('listAttempts', () => {
  it('lists newest first across history', () => {
    const rows = history.listAttempts({ limit: 100 }).items;
    expect(rows).toHaveLength(10);
    const finished = rows.map((r) => r.finishedAt);
    expect(finished).toEqual([...finished].sort().reverse());
    expect(rows[0]?.attemptId).toBe('run-now-0');
  });

  it('lists a run in plan order', () => {
    expect(ids(history.listAttempts({ runId: 'run-b', limit: 10 }))).toEqual(['run-b-0', 'run-b-1', 'run-b-2', 'run-b-3']);
  });

  it('pages by offset and by cursor to the same complete, duplicate-free sequence', () => {
    const all = ids(history.listAttempts({ limit: 100 }));
    const byOffset: string[] = [];
    for (let offset = 0; offset < all.length; offset += 3) byOffset.push(...ids(history.listAttempts({ limit: 3, offset })));
    expect(byOffset).toEqual(all);

    const byCursor: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = history.listAttempts(cursor === undefined ? { limit: 3 } : { limit: 3, cursor });
      byCursor.push(...ids(page));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor !== undefined);
    expect(byCursor).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / 3));
  });

  it('pages a run in plan order by cursor', () => {
    const first = history.listAttempts({ runId: 'run-a', limit: 3 });
    expect(first.nextCursor).not.toBeNull();
    const second = history.listAttempts({ runId: 'run-a', limit: 3, cursor: first.nextCursor ?? '' });
    expect([...ids(first), ...ids(second)]).toEqual(['run-a-0', 'run-a-1', 'run-a-2', 'run-a-3']);
    expect(second.nextCursor).toBeNull();
  });

  it('filters by agent, task, verdict, cause and since, and counts agree', () => {
    const cases = [
      [{ agent: 'oracle' }, 4],
      [{ agent: 'oracle', taskId: 't1' }, 2],
      [{ taskId: 't2' }, 5],
      [{ verdict: 'ERROR' as const }, 1],
      [{ cause: 'no_changes' as const }, 4],
      [{ runId: 'run-a', agent: 'nop' }, 2],
      [{ since: '2025-03-02' }, 6],
      [{ since: '2025-03-02T10:05:00Z' }, 5],
      [{ since: '2h' }, 1],
      [{ since: '7d' }, 1],
      [{ since: new Date('2025-03-01T10:02:00Z') }, 8],
    ] as const;
    for (const [filter, expected] of cases) {
      expect(history.listAttempts({ ...filter, limit: 100 }).items, JSON.stringify(filter)).toHaveLength(expected);
      expect(history.countAttempts(filter), JSON.stringify(filter)).toBe(expected);
    }
    expect(history.countAttempts()).toBe(10);
  });

  it('refuses bad limits and mismatched cursors', () => {
    expect(() => history.listAttempts({ limit: 0 })).toThrow(HistoryError);
    expect(() => history.listAttempts({ limit: MAX_PAGE_SIZE + 1 })).toThrow(/limit/);
    expect(() => history.listAttempts({ limit: 2.5 })).toThrow(/limit/);
    expect(() => history.listAttempts({ limit: 5, offset: -1 })).toThrow(/offset/);
    const cursor = history.listAttempts({ limit: 2 }).nextCursor ?? '';
    expect(() => history.listAttempts({ limit: 2, cursor, offset: 2 })).toThrow(/either/);
    expect(() => history.listAttempts({ runId: 'run-a', limit: 2, cursor })).toThrow(/cursor/);
    expect(() => history.listRuns({ limit: 2, cursor })).toThrow(/cursor/);
    expect(() => history.listAttempts({ limit: 2, cursor: 'garbage' })).toThrow(/cursor/);
  });

  it('returns undefined for an unknown attempt', () => {
    expect(history.getAttempt('nope')).toBeUndefined();
  });
});

describe('listRuns and getRun', () => {
  it('lists runs newest first with live tallies of their attempts', () => {
    const runs = history.listRuns({ limit: 10 }).items;
    expect(runs.map((r) => r.runId)).toEqual(['run-now', 'run-c', 'run-b', 'run-a']);
    expect(runs.find((r) => r.runId === 'run-a')?.recorded).toEqual({ attempts: 4, PASS: 2, FAIL: 2, ERROR: 0 });
    expect(runs.find((r) => r.runId === 'run-c')?.recorded).toEqual({ attempts: 1, PASS: 0, FAIL: 0, ERROR: 1 });
    expect(runs[0]?.counts).toBeNull();
  });

  it('filters by agent and since, pages by cursor, and counts agree', () => {
    expect(history.listRuns({ limit: 10, agent: 'claude' }).items.map((r) => r.runId)).toEqual(['run-now', 'run-c']);
    expect(history.countRuns({ agent: 'claude' })).toBe(2);
    expect(history.listRuns({ limit: 10, since: '2025-03-02' }).items).toHaveLength(3);
    expect(history.countRuns({ since: '1d' })).toBe(1);
    expect(history.countRuns()).toBe(4);

    const first = history.listRuns({ limit: 3 });
    const second = history.listRuns({ limit: 3, cursor: first.nextCursor ?? '' });
    expect(second.items.map((r) => r.runId)).toEqual(['run-a']);
    expect(second.nextCursor).toBeNull();
    expect(history.listRuns({ limit: 3, offset: 3 }).items.map((r) => r.runId)).toEqual(['run-a']);
  });

  it('gets one run with its tallies, or undefined', () => {
    expect(history.getRun('run-b')).toMatchObject({ runId: 'run-b', recorded: { attempts: 4, PASS: 2 }, stats: null });
    expect(history.getRun('run-zzz')).toBeUndefined();
  });
});

describe('resolveId', () => {
  it('resolves full ids and unique prefixes of runs and attempts', () => {
    expect(history.resolveId('run-b')).toEqual({ kind: 'run', runId: 'run-b' });
    expect(history.resolveId('run-b-2')).toEqual({ kind: 'attempt', attemptId: 'run-b-2', runId: 'run-b' });
    history.recordRun(runMeta('zeta-run'));
    expect(history.resolveId('zet')).toEqual({ kind: 'run', runId: 'zeta-run' });
    expect(history.resolveId('run-now-')).toEqual({ kind: 'attempt', attemptId: 'run-now-0', runId: 'run-now' });
  });

  it('throws on an ambiguous prefix, listing the candidates', () => {
    let error: unknown;
    try {
      history.resolveId('run-a-');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AmbiguousIdError);
    expect((error as AmbiguousIdError).candidates).toEqual(['run-a-0', 'run-a-1', 'run-a-2', 'run-a-3']);
    expect(() => history.resolveId('run')).toThrow(/matches more than one id/);
    // A run id that prefixes its attempts' ids is still ambiguous as a prefix, but not in full.
    expect(() => history.resolveId('run-no')).toThrow(AmbiguousIdError);
  });

  it('returns undefined when nothing matches and refuses an empty prefix', () => {
    expect(history.resolveId('zzz')).toBeUndefined();
    expect(() => history.resolveId('')).toThrow(HistoryError);
  });

  it('lets a full id win over longer ids it prefixes', () => {
    history.recordRun(runMeta('r1'));
    history.recordRun(runMeta('r10'));
    expect(history.resolveId('r1')).toEqual({ kind: 'run', runId: 'r1' });
    expect(() => history.resolveId('r')).toThrow(AmbiguousIdError);
  });

  it('treats LIKE and GLOB characters in a prefix literally', () => {
    expect(history.resolveId('run_')).toBeUndefined();
    expect(history.resolveId('run%')).toBeUndefined();
    expect(history.resolveId('run*')).toBeUndefined();
  });
});

describe('parseSince', () => {
  const now = new Date('2025-03-10T12:00:00.000Z');
  it('accepts durations, dates, timestamps and Date objects', () => {
    expect(parseSince('24h', now)).toBe('2025-03-09T12:00:00.000Z');
    expect(parseSince('7d', now)).toBe('2025-03-03T12:00:00.000Z');
    expect(parseSince('30m', now)).toBe('2025-03-10T11:30:00.000Z');
    expect(parseSince('2w', now)).toBe('2025-02-24T12:00:00.000Z');
    expect(parseSince('2025-03-01', now)).toBe('2025-03-01T00:00:00.000Z');
    expect(parseSince('2025-03-01T02:00:00+02:00', now)).toBe('2025-03-01T00:00:00.000Z');
    expect(parseSince(new Date('2025-01-01T00:00:00Z'), now)).toBe('2025-01-01T00:00:00.000Z');
  });
  it('rejects anything else', () => {
    for (const bad of ['', 'yesterday', '7', '7y', '2025-13-45', 'd7']) expect(() => parseSince(bad, now), bad).toThrow(HistoryError);
    expect(() => parseSince(new Date('nope'), now)).toThrow(HistoryError);
  });
});
