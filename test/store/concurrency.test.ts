import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHistory } from '../../src/infra/store/index.js';
import { compileStoreInto } from './helpers/compile.js';
import { tempDir } from './helpers/attempts.js';

const CHILD = fileURLToPath(new URL('./helpers/history-child.mjs', import.meta.url));
const WRITERS = 4;
const PER_WRITER = 300;
const SHARED_EVERY = 5;
const CHECKS_PER_ATTEMPT = 3;

const tmp = tempDir('concurrency');
let entries: { storeEntry: string; fixturesEntry: string };
beforeAll(() => {
  entries = compileStoreInto(join(tmp.dir, 'compiled'));
});
afterAll(tmp.cleanup);

interface ChildOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function startChild(args: string[]): Promise<ChildOutcome> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** Ids each writer writes: its own, plus the shared ones every writer upserts. */
function expectedAttemptIds(): Set<string> {
  const ids = new Set<string>();
  for (let w = 0; w < WRITERS; w++) {
    for (let i = 0; i < PER_WRITER; i++) ids.add(i % SHARED_EVERY === 0 ? `shared-${i}` : `w${w}-${i}`);
  }
  return ids;
}

function rowCount(dbPath: string, table: string): number {
  const db = new Database(dbPath, { readonly: true });
  try {
    return Number(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get());
  } finally {
    db.close();
  }
}

async function runWriters(dbPath: string, withReader: boolean): Promise<{ writers: ChildOutcome[]; reader?: ChildOutcome }> {
  const goFile = join(tmp.dir, `${Date.now()}-${Math.random()}.go`);
  const doneFile = `${goFile}.done`;
  const common = [entries.storeEntry, entries.fixturesEntry, dbPath, goFile, doneFile];
  const writers = Array.from({ length: WRITERS }, (_, w) => startChild(['write', ...common, String(w), String(PER_WRITER)]));
  const reader = withReader ? startChild(['read', ...common, 'reader', '0']) : undefined;
  writeFileSync(goFile, '');
  const writerOutcomes = await Promise.all(writers);
  writeFileSync(doneFile, '');
  return { writers: writerOutcomes, reader: reader ? await reader : undefined };
}

function expectCleanExit(outcome: ChildOutcome): void {
  expect(outcome.stderr).toBe('');
  expect(outcome.code).toBe(0);
}

function expectComplete(dbPath: string): void {
  const expected = expectedAttemptIds();
  const history = openHistory(dbPath, { readonly: true });
  try {
    expect(history.countRuns()).toBe(3);
    expect(history.countAttempts()).toBe(expected.size);
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = history.listAttempts(cursor === undefined ? { limit: 500 } : { limit: 500, cursor });
      for (const row of page.items) {
        expect(seen.has(row.attemptId)).toBe(false);
        seen.add(row.attemptId);
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual(expected);
    const recorded = history.listRuns({ limit: 10 }).items.reduce((sum, run) => sum + run.recorded.attempts, 0);
    expect(recorded).toBe(expected.size);
  } finally {
    history.close();
  }
  // Checks and usage were replaced on every upsert, never duplicated or orphaned.
  expect(rowCount(dbPath, 'checks')).toBe(expected.size * CHECKS_PER_ATTEMPT);
  expect(rowCount(dbPath, 'usage')).toBe(expected.size);
}

describe('several processes writing one history', () => {
  it('create and migrate a fresh file together, then write without losing or duplicating rows', async () => {
    const dbPath = join(tmp.dir, 'fresh', 'history.db');
    const { writers } = await runWriters(dbPath, false);
    writers.forEach(expectCleanExit);
    expectComplete(dbPath);
  });

  it('keep a concurrent read-only reader consistent', async () => {
    const dbPath = join(tmp.dir, 'existing', 'history.db');
    openHistory(dbPath).close();
    const { writers, reader } = await runWriters(dbPath, true);
    writers.forEach(expectCleanExit);
    expect(reader).toBeDefined();
    if (reader) {
      expectCleanExit(reader);
      const { reads } = JSON.parse(reader.stdout) as { reads: number };
      expect(reads).toBeGreaterThan(0);
    }
    expectComplete(dbPath);
  });
});
