import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptResult, Cause } from '../../src/core/types/index.js';
import { openHistory, type AttemptEntry, type History } from '../../src/infra/store/index.js';
import { countAttemptsQuery, listAttemptsQuery } from '../../src/infra/store/read-attempts.js';
import { listRunsQuery } from '../../src/infra/store/read-runs.js';
import { attempt, runMeta, tempDir } from './helpers/attempts.js';

/*
 * 100,000 attempts in one transaction: 5 agents × 50 tasks × 400 trials, 1000 a day for 100 days.
 * Correctness only; speed is for bench/. Query plans are checked instead of timings.
 */
const TOTAL = 100_000;
const AGENTS = ['a0', 'a1', 'a2', 'a3', 'a4'];
const PER_DAY = 1000;
const DAY0 = Date.UTC(2025, 0, 1);
const CHECKS = 4;

function causeOf(i: number): Cause {
  if (i % 20 === 0) return 'harness_error';
  return i % 3 === 0 ? 'passed' : 'tests_failed';
}

function bigAttempt(i: number): AttemptResult {
  return attempt({
    attemptId: `big-${String(i).padStart(6, '0')}`,
    runId: 'big',
    agent: AGENTS[i % AGENTS.length],
    taskId: `t${Math.floor(i / AGENTS.length) % 50}`,
    trial: Math.floor(i / 250),
    index: i,
    cause: causeOf(i),
    finishedAt: new Date(DAY0 + Math.floor(i / PER_DAY) * 86_400_000 + (i % PER_DAY) * 60_000).toISOString(),
    costUsd: i % 2 === 0 ? null : 0.002,
    checks: CHECKS,
  });
}

function* bigEntries(): Generator<AttemptEntry> {
  for (let i = 0; i < TOTAL; i++) yield { attempt: bigAttempt(i), extra: { repoKey: 'repo', difficulty: 'easy' } };
}

const tmp = tempDir('scale');
const dbPath = join(tmp.dir, 'history.db');
let history: History;

// Writing 100 000 rows is fixed work; on a loaded 2-core machine it has taken over a minute, so the
// hook's limit only guards against a hang, not a slow machine.
const FILL_TIMEOUT_MS = 15 * 60_000;

beforeAll(() => {
  const writer = openHistory(dbPath);
  writer.recordRun(runMeta('big', { planned: TOTAL, agents: AGENTS }));
  writer.recordRun(runMeta('small', { createdAt: '2026-01-01T00:00:00.000Z' }));
  writer.recordAttempt('small', attempt({ attemptId: 'small-0', runId: 'small', finishedAt: '2026-01-01T01:00:00.000Z' }));
  writer.recordAttempts('big', bigEntries());
  // Closing runs PRAGMA optimize, so the plans checked below are the ones a real history gets.
  writer.close();
  history = openHistory(dbPath);
}, FILL_TIMEOUT_MS);
afterAll(() => {
  history.close();
  tmp.cleanup();
});

describe('a history with 100,000 attempts written in one transaction', () => {
  it('holds every attempt exactly once, with its checks and usage', () => {
    expect(history.countAttempts({ runId: 'big' })).toBe(TOTAL);
    expect(history.countAttempts({ agent: 'a3' })).toBe(TOTAL / AGENTS.length);
    const errors = Array.from({ length: TOTAL }, (_, i) => causeOf(i)).filter((c) => c === 'harness_error').length;
    expect(history.countAttempts({ verdict: 'ERROR' })).toBe(errors);
    expect(history.getRun('big')?.recorded.attempts).toBe(TOTAL);

    const raw = new Database(dbPath, { readonly: true });
    try {
      expect(raw.prepare('SELECT count(*) FROM checks').pluck().get()).toBe((TOTAL + 1) * CHECKS - 2);
      expect(raw.prepare('SELECT count(*) FROM usage WHERE cost_usd IS NULL').pluck().get()).toBe(TOTAL / 2);
    } finally {
      raw.close();
    }
  });

  it('returns any attempt in full', () => {
    const got = history.getAttempt('big-054321');
    expect(got?.attempt).toEqual(bigAttempt(54_321));
    expect(got?.checks).toHaveLength(CHECKS);
    expect(got?.usage?.costUsd).toBe(0.002);
  });

  it('pages deep by offset and through a filter by cursor', () => {
    // TOTAL + 1 attempts in all (the small run's is the newest), so this is the oldest ten.
    const oldest = history.listAttempts({ limit: 20, offset: TOTAL - 9 }).items.map((r) => r.attemptId);
    expect(oldest).toEqual(Array.from({ length: 10 }, (_, i) => `big-00000${9 - i}`));

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = history.listAttempts({ agent: 'a2', taskId: 't7', limit: 150, ...(cursor === undefined ? {} : { cursor }) });
      seen.push(...page.items.map((r) => r.attemptId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toHaveLength(400);
    expect(new Set(seen).size).toBe(400);
    expect(seen).toEqual([...seen].sort().reverse());
  });

  it('aggregates cells and trends over the whole run correctly', () => {
    const cells = history.cells('big');
    expect(cells).toHaveLength(AGENTS.length * 50);
    for (const cell of cells) expect(cell.n + cell.errors).toBe(400);
    expect(cells.reduce((sum, c) => sum + c.n + c.errors, 0)).toBe(TOTAL);

    // a0 ran 200 attempts a day for 100 days from 2025-01-01; the last 7 days are Apr 4–10.
    const days = history.trends({ bucket: 'day', limit: 7, agent: 'a0' });
    expect(days.map((p) => p.bucket)).toEqual(['04', '05', '06', '07', '08', '09', '10'].map((d) => `2025-04-${d}`));
    const lastDay = { n: 0, passes: 0, errors: 0 };
    for (let i = 99 * PER_DAY; i < TOTAL; i += AGENTS.length) {
      const cause = causeOf(i);
      if (cause === 'harness_error') lastDay.errors++;
      else lastDay.n++;
      if (cause === 'passed') lastDay.passes++;
    }
    expect(days[6]).toMatchObject(lastDay);
  });
});

/** EXPLAIN QUERY PLAN lines that would make a list slow at this size. */
function slowSteps(sql: string, params: Record<string, unknown>): string[] {
  const raw = new Database(dbPath, { readonly: true });
  try {
    const steps = raw.prepare<[Record<string, unknown>], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).all(params);
    return (
      steps
        .map((s) => s.detail)
        // A scan of an index in ORDER BY order stops at LIMIT; a table scan or a sort does not.
        .filter((d) => /^SCAN a$/.test(d) || /TEMP B-TREE FOR (ORDER BY|RIGHT PART)/.test(d))
    );
  } finally {
    raw.close();
  }
}

describe('query plans at 100,000 attempts', () => {
  const cursorAt = (order: string, key: string | number): string => Buffer.from(JSON.stringify([order, key, 'x'])).toString('base64url');
  const attemptQueries = [
    {},
    { agent: 'a1' },
    { agent: 'a1', taskId: 't3' },
    { taskId: 't3' },
    { verdict: 'FAIL' as const },
    { cause: 'harness_error' as const },
    { agent: 'a1', verdict: 'PASS' as const },
    { since: '2025-03-01' },
    { runId: 'big' },
    { runId: 'big', verdict: 'ERROR' as const },
    { cursor: cursorAt('attempts-newest', '2025-02-01T00:00:00.000Z') },
    { agent: 'a1', cursor: cursorAt('attempts-newest', '2025-02-01T00:00:00.000Z') },
    { runId: 'big', cursor: cursorAt('attempts-plan', 500) },
  ];

  it.each(attemptQueries)('lists attempts %o from an index, in index order', (filter) => {
    const { sql, params } = listAttemptsQuery({ limit: 50, ...filter });
    expect(slowSteps(sql, params)).toEqual([]);
  });

  it.each(attemptQueries.filter((q) => !('cursor' in q)))('counts attempts %o from an index', (filter) => {
    const { sql, params } = countAttemptsQuery(filter);
    expect(slowSteps(sql, params)).toEqual([]);
  });

  it('lists runs newest first and tallies only the chosen page', () => {
    const { sql, params } = listRunsQuery({ limit: 20 });
    expect(slowSteps(sql, params)).toEqual([]);
  });
});
