/**
 * The import corpus (test/fixtures/corpus/README.md): real Harbor and Terminal-Bench task
 * directories and SWE-bench Verified records, imported and compared field by field to a committed
 * expectation: the importer's report (imported, skipped with why, one note per task, what the user
 * still has to supply), every field of the task set it writes, and every file it writes (by digest).
 * UPDATE_CORPUS=1 rewrites the expectation after a deliberate change.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { importHarbor, importSweBench, type ImportResult } from '../../src/features/importers/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const CORPUS = resolve('test/fixtures/corpus');
const EXPECTED = join(CORPUS, 'expected.json');

const HARBOR = ['simple-task', 'multi-reward', 'skills', 'dns-blacklisting', 'multi-step'].map((d) => join(CORPUS, 'harbor-cookbook', d));
const TERMINAL_BENCH = [
  'evoeval/0',
  'livecodebenchpro/lcbpro-1983a',
  'aider_polyglot/polyglot_python_robot-name',
  'swebench-verified/sphinx-doc__sphinx-9367',
].map((d) => join(CORPUS, 'terminal-bench-datasets', d));
const JSONL = join(CORPUS, 'swe-bench-verified/verified.jsonl');
const JSON_ARRAY = join(CORPUS, 'swe-bench-verified/verified.json');

/** Long text as its digest, so the expectation stays readable and still pins every byte. */
function digest(text: string | Buffer): string {
  return `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 16)} (${text.length} bytes)`;
}

/** Paths made machine-independent; with `long`, text over 160 characters as its digest. */
function normalise(value: unknown, out: string, long = false): unknown {
  if (typeof value === 'string') {
    const text = value.split(out).join('<out>').split(CORPUS).join('<corpus>');
    return long && text.length > 160 ? digest(value) : text;
  }
  if (Array.isArray(value)) return value.map((v) => normalise(v, out, long));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v, out, long)]));
  return value;
}

/** A written file with the corpus's and the output's absolute paths spelled as placeholders (the task set names its source). */
function machineIndependent(bytes: Buffer, out: string): Buffer {
  const text = bytes.toString('utf8');
  if (!text.includes(CORPUS) && !text.includes(out)) return bytes;
  return Buffer.from(text.split(out).join('<out>').split(CORPUS).join('<corpus>'));
}

function filesUnder(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(root, path)] = digest(machineIndependent(readFileSync(path), root));
    }
  };
  walk(root);
  return files;
}

/** What one import did, in a form that compares field by field. */
function snapshot(result: ImportResult, out: string): unknown {
  // The task set must load: every imported task is a valid Crucible task.
  expect(loadTaskSet(result.taskSetFile).tasks.map((t) => t.id)).toEqual(result.taskIds);
  return {
    report: normalise({ taskIds: result.taskIds, skipped: result.skipped, notes: result.notes, needs: result.needs }, out),
    taskSet: normalise(parse(readFileSync(result.taskSetFile, 'utf8')) as unknown, out, true),
    files: filesUnder(out),
  };
}

async function importCorpus(): Promise<Record<string, unknown>> {
  const outs = { harbor: tempDir(), terminalBench: tempDir(), jsonl: tempDir(), json: tempDir() };
  return {
    harbor: snapshot(await importHarbor({ dirs: HARBOR, out: outs.harbor, force: true }), outs.harbor),
    terminalBench: snapshot(await importHarbor({ dirs: TERMINAL_BENCH, out: outs.terminalBench, force: true }), outs.terminalBench),
    sweBenchJsonl: snapshot(await importSweBench({ file: JSONL, out: outs.jsonl, force: true }), outs.jsonl),
    sweBenchJson: snapshot(await importSweBench({ file: JSON_ARRAY, out: outs.json, force: true }), outs.json),
  };
}

describe('the import corpus', () => {
  it('covers at least 10 real task directories and records from 3 sources', () => {
    const records = [JSONL, JSON_ARRAY].flatMap((f) => {
      const text = readFileSync(f, 'utf8');
      return f.endsWith('.json') ? (JSON.parse(text) as unknown[]) : text.split('\n').filter((l) => l.trim() !== '');
    });
    expect(HARBOR.length + TERMINAL_BENCH.length + records.length).toBeGreaterThanOrEqual(10);
    for (const source of ['harbor-cookbook', 'terminal-bench-datasets', 'swe-bench-verified'])
      expect(existsSync(join(CORPUS, source, 'LICENSE')), source).toBe(true);
  });

  it('imports as the committed expectation says, field by field', async () => {
    const actual = await importCorpus();
    if (process.env.UPDATE_CORPUS === '1') writeFileSync(EXPECTED, `${JSON.stringify(actual, null, 2)}\n`);
    const expected = JSON.parse(readFileSync(EXPECTED, 'utf8')) as Record<string, unknown>;
    for (const key of Object.keys(expected)) expect(actual[key], key).toEqual(expected[key]);
    expect(Object.keys(actual)).toEqual(Object.keys(expected));
  });

  it('keeps the SWE-bench gold patch and problem statement byte for byte', async () => {
    const out = tempDir();
    const result = await importSweBench({ file: JSON_ARRAY, out, force: true });
    const records = JSON.parse(readFileSync(JSON_ARRAY, 'utf8')) as Array<{
      instance_id: string;
      patch: string;
      problem_statement: string;
      test_patch: string;
    }>;
    const tasks = loadTaskSet(result.taskSetFile).tasks;
    for (const record of records) {
      const withNewline = (s: string): string => (s.endsWith('\n') ? s : `${s}\n`);
      expect(readFileSync(join(out, 'oracle', `${record.instance_id}.patch`), 'utf8')).toBe(withNewline(record.patch));
      expect(readFileSync(join(out, 'instructions', `${record.instance_id}.md`), 'utf8')).toBe(withNewline(record.problem_statement));
      expect(tasks.find((t) => t.id === record.instance_id)?.tests.command).toContain(withNewline(record.test_patch));
    }
  });

  it('--strict refuses a real record whose ids are cut off inside their parameters', async () => {
    await expect(importSweBench({ file: JSONL, out: tempDir(), force: true, strict: true })).rejects.toThrow(
      /verified\.jsonl:3: sphinx-doc__sphinx-9367: \d+ test ids can never match, first PASS_TO_PASS "tests\/test_pycode_ast\.py::test_unparse\[a", which is cut off inside its parameters/,
    );
  });
});
