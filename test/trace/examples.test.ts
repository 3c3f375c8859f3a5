import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetamorphicReport } from '../../src/domain/trace/index.js';
import { CHECK_IDS } from '../../src/core/types/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { sharedExampleRun } from '../helpers/examples.js';

// The e2e tier's one run of the bundled examples (six tasks × oracle and nop, bwrap;
// test/setup/examples.ts), shared read-only: a test that edits a trace edits a copy in `scratch`.
const ATTEMPTS = 12;
let root = '';
let out = '';
let runId = '';
let scratch = '';
let attemptDirs: string[] = [];

beforeAll(async () => {
  const run = await sharedExampleRun();
  ({ root, state: out, runId } = run);
  expect(run.attempts).toBe(ATTEMPTS);
  expect(run.stderr).not.toMatch(/crucible failed/);
  scratch = mkdtempSync(join(tmpdir(), 'crucible-trace-'));
  attemptDirs = readdirSync(join(out, 'runs', runId, 'attempts')).map((n) => join(out, 'runs', runId, 'attempts', n));
}, attemptBudget(ATTEMPTS));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('traces of a run of the examples', () => {
  it('every attempt has a trace that verifies', async () => {
    expect(attemptDirs).toHaveLength(ATTEMPTS);
    const r = await runCli(['trace', 'verify', runId, '-o', out, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { ok: boolean; attempts: Array<{ ok: boolean; events: number }> };
    expect(report.ok).toBe(true);
    expect(report.attempts).toHaveLength(ATTEMPTS);
    expect(report.attempts.every((a) => a.ok && a.events > 0)).toBe(true);
  });

  it('replaying the run matches 100%, checks and verdicts', async () => {
    const r = await runCli(['trace', 'replay', runId, '-o', out]);
    expect(r.status, r.stdout).toBe(0);
    expect(r.stdout).toContain(`replayed ${ATTEMPTS} attempt(s): ${ATTEMPTS} match (100.0%)`);
    const json = JSON.parse((await runCli(['trace', 'replay', runId, '-o', out, '--json'])).stdout) as {
      matchRate: number;
      checks: { total: number; matched: number };
      replays: Array<{ end: string; replayed: { verdict: string } }>;
    };
    expect(json.matchRate).toBe(1);
    expect(json.checks.matched).toBe(json.checks.total);
    expect(json.checks.total).toBe(ATTEMPTS * CHECK_IDS.length);
    // Every attempt was graded (none ended early), half of them PASS (the oracle), half FAIL (nop).
    expect(json.replays.every((r) => r.end === 'graded')).toBe(true);
    expect(json.replays.filter((r) => r.replayed.verdict === 'PASS')).toHaveLength(ATTEMPTS / 2);
  });

  it('holds no file content: not a line the oracle added', () => {
    const dir = attemptDirs.find((d) => d.includes('js-slugify.oracle')) ?? '';
    const trace = readFileSync(join(dir, 'trace.jsonl'), 'utf8');
    const added = readFileSync(join(dir, 'diff.patch'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('+') && !l.startsWith('+++') && l.trim().length > 8)
      .map((l) => l.slice(1).trim());
    expect(added.length).toBeGreaterThan(0);
    for (const line of added) expect(trace).not.toContain(line);
    expect(trace).toMatch(/"newBlob":"[0-9a-f]{40}"/);
  });

  it('names no host path: the state directory and the checkout appear only as stand-in roots', () => {
    for (const dir of attemptDirs) {
      const trace = readFileSync(join(dir, 'trace.jsonl'), 'utf8');
      expect(trace).not.toContain(root);
      expect(trace).not.toContain(process.cwd());
      expect(trace).toContain('/crucible/attempt/');
    }
  });

  it('one edited byte fails verify, naming the file and line; replay then reports a mismatch', async () => {
    const copy = join(scratch, 'edited');
    const source = attemptDirs.find((d) => d.includes('js-sortby.oracle')) ?? '';
    cpSync(source, copy, { recursive: true });
    const file = join(copy, 'trace.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes('"type":"check"'));
    // One byte: the first hex digit of the check's message hash, changed to another digit.
    lines[line] = (lines[line] ?? '').replace(/"messageSha256":"(.)/, (_m, c: string) => `"messageSha256":"${c === '0' ? '1' : '0'}`);
    writeFileSync(file, lines.join('\n'));
    const r = await runCli(['trace', 'verify', copy]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`trace.jsonl:${line + 1}:`);
    const replay = await runCli(['trace', 'replay', copy]);
    expect(replay.status).toBe(1);
    expect(replay.stdout).toContain('MISMATCH');
  });

  it('metamorphic transformations behave as expected on every attempt', async () => {
    const seen = new Map<string, Set<string>>();
    for (const dir of attemptDirs) {
      const r = await runCli(['trace', 'metamorphic', dir, '--json']);
      const report = JSON.parse(r.stdout) as MetamorphicReport;
      expect(report.problem, dir).toBeUndefined();
      expect(
        report.results.filter((x) => x.agree === false),
        dir,
      ).toEqual([]);
      expect(r.status, dir).toBe(0);
      for (const x of report.results) if (x.seen) seen.set(x.id, (seen.get(x.id) ?? new Set()).add(x.seen));
    }
    // Over the examples, each kind of transformation applied somewhere and did what it must.
    expect(Object.fromEntries([...seen].map(([id, s]) => [id, [...s]]))).toMatchObject({
      'rename-unrelated-file': ['same'],
      'touch-test-file': ['changed'],
      'add-forbidden-path': ['changed'],
      'drop-fail-to-pass': ['changed'],
      'edit-without-rehash': ['rejected'],
      'drop-event': ['rejected'],
      'swap-events': ['rejected'],
      truncate: ['rejected'],
    });
  });

  it('bad input exits 2 with one line', async () => {
    const missing = await runCli(['trace', 'verify', join(root, 'nowhere')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    const run = await runCli(['trace', 'metamorphic', runId, '-o', out]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/takes one attempt/);
  });
});
