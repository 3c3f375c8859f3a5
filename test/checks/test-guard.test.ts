import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAddedLines } from '../../src/evidence/added-lines.js';
import { collectDiff } from '../../src/evidence/diff.js';
import { finishFsGuard, startFsGuard } from '../../src/evidence/fs-guard.js';
import { guardEvidence, inspectTests, restoreTests, snapshotTests, type TestSnapshot } from '../../src/evidence/test-guard.js';
import { DEFAULT_TEST_PATHS } from '../../src/config/index.js';
import { commitBaseline, type Baseline } from '../../src/workspace/baseline.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const FILES: Record<string, string> = {
  'src/a.js': 'export const a = 1;\n',
  'tests/test_a.py': 'def test_a():\n    assert True\n',
  'test/b.test.mjs': "import test from 'node:test';\ntest('b', () => {});\n",
  'package.json': JSON.stringify({ name: 'x', scripts: { test: 'node --test test/' }, dependencies: { a: '1' } }, null, 2),
  'pyproject.toml': '[project]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
  '.gitignore': 'build/\n',
  'build/test/gen.test.js': '// generated before the agent ran\n',
};

interface Fixture {
  root: string;
  ws: string;
  results: string;
  baseline: Baseline;
  snapshot: TestSnapshot;
}

async function fixture(): Promise<Fixture> {
  const root = tempDir();
  const ws = join(root, 'workspace');
  const results = join(root, 'results');
  mkdirSync(results, { recursive: true });
  for (const [path, content] of Object.entries(FILES)) write(ws, path, content);
  const baseline = await commitBaseline(ws, join(root, 'baseline.git'));
  const snapshot = await snapshotTests({ workspace: ws, gitDir: baseline.gitDir, commit: baseline.commit, testPaths: DEFAULT_TEST_PATHS, copyDir: join(root, 'copies') });
  return { root, ws, results, baseline, snapshot };
}

function write(ws: string, path: string, content: string): void {
  mkdirSync(dirname(join(ws, path)), { recursive: true });
  writeFileSync(join(ws, path), content);
}

const read = (ws: string, path: string): string => readFileSync(join(ws, path), 'utf8');

async function judge(f: Fixture) {
  const state = await inspectTests(f.snapshot, f.results);
  const evidence = guardEvidence(f.snapshot, state);
  const kinds = Object.fromEntries(evidence.findings.map((x) => [x.path, x.kind]));
  return { state, evidence, kinds };
}

describe('the test guard', () => {
  it('finds nothing when nothing changed, and guards tracked and generated test files alike', async () => {
    const f = await fixture();
    const { evidence } = await judge(f);
    expect(evidence).toEqual({ guarded: 5, findings: [], complete: true });
    expect(f.snapshot.files.get('build/test/gen.test.js')?.tracked).toBe(false);
  });

  it('sees tests modified, deleted, renamed, replaced by a symlink, and puts every one back', async () => {
    const f = await fixture();
    write(f.ws, 'tests/test_a.py', 'def test_a():\n    return\n');
    unlinkSync(join(f.ws, 'test/b.test.mjs'));
    write(f.ws, 'build/test/gen.test.js', '// tampered\n');
    const { state, kinds, evidence } = await judge(f);
    expect(kinds).toEqual({ 'tests/test_a.py': 'modified', 'test/b.test.mjs': 'deleted', 'build/test/gen.test.js': 'modified' });
    expect(evidence.findings.find((x) => x.path === 'build/test/gen.test.js')?.tracked).toBe(false);
    await restoreTests(f.snapshot, state, f.results);
    expect(read(f.ws, 'tests/test_a.py')).toBe(FILES['tests/test_a.py']);
    expect(read(f.ws, 'test/b.test.mjs')).toBe(FILES['test/b.test.mjs']);
    expect(read(f.ws, 'build/test/gen.test.js')).toBe(FILES['build/test/gen.test.js']);

    renameSync(join(f.ws, 'tests/test_a.py'), join(f.ws, 'tests/test_moved.py'));
    rmSync(join(f.ws, 'test/b.test.mjs'));
    symlinkSync('/dev/null', join(f.ws, 'test/b.test.mjs'));
    const second = await judge(f);
    expect(second.evidence.findings).toEqual(
      expect.arrayContaining([
        { path: 'tests/test_moved.py', oldPath: 'tests/test_a.py', kind: 'renamed', tracked: true },
        { path: 'test/b.test.mjs', kind: 'modified', tracked: true },
      ]),
    );
    await restoreTests(f.snapshot, second.state, f.results);
    expect(existsSync(join(f.ws, 'tests/test_moved.py'))).toBe(false);
    expect(read(f.ws, 'tests/test_a.py')).toBe(FILES['tests/test_a.py']);
    expect(read(f.ws, 'test/b.test.mjs')).toBe(FILES['test/b.test.mjs']);
    expect((await judge(f)).evidence.findings).toEqual([]);
  });

  it('tells test configuration from unrelated edits to the same files', async () => {
    const f = await fixture();
    // Unrelated: a dependency, project metadata. Related: the test script, pytest options, new runner config.
    write(f.ws, 'package.json', JSON.stringify({ name: 'x', scripts: { test: 'node --test test/' }, dependencies: { a: '2' } }, null, 2));
    write(f.ws, 'pyproject.toml', '[project]\nname = "y"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n');
    expect((await judge(f)).evidence.findings).toEqual([]);

    write(f.ws, 'package.json', JSON.stringify({ name: 'x', scripts: { test: 'exit 0' }, dependencies: { a: '2' } }, null, 2));
    write(f.ws, 'pyproject.toml', '[project]\nname = "y"\n\n[tool.pytest.ini_options]\naddopts = "-q -k not_median"\n');
    write(f.ws, 'conftest.py', 'import pytest\n');
    write(f.ws, 'sub/vitest.config.ts', 'export default {}\n');
    write(f.ws, 'setup.cfg', '[tool:pytest]\naddopts = -x\n');
    write(f.ws, 'tox.ini', '[tox]\nenvlist = py3\n');
    const { kinds, state } = await judge(f);
    expect(kinds).toEqual({ 'package.json': 'config', 'pyproject.toml': 'config', 'conftest.py': 'config', 'sub/vitest.config.ts': 'config', 'setup.cfg': 'config' });

    await restoreTests(f.snapshot, state, f.results);
    expect(read(f.ws, 'package.json')).toBe(FILES['package.json']);
    expect(existsSync(join(f.ws, 'conftest.py'))).toBe(false);
    expect(existsSync(join(f.ws, 'setup.cfg'))).toBe(false);
    expect(read(f.ws, 'tox.ini')).toContain('envlist'); // no pytest section: not the guard's business
  });

  it('sets new test files aside, flags shadows and forged reports, and clears bytecode and the results directory', async () => {
    const f = await fixture();
    write(f.ws, 'tests/test_new.py', 'def test_new():\n    pass\n');
    write(f.ws, 'test/b.test.js', "test('b', () => {});\n");
    write(f.ws, 'tests/test_a/__init__.py', '');
    write(f.ws, 'reports/junit.xml', '<?xml version="1.0"?>\n<!-- all good -->\n<testsuites><testsuite name="x"/></testsuites>\n');
    write(f.ws, 'pom.xml', '<project></project>\n');
    write(f.ws, 'tests/__pycache__/test_a.cpython-311.pyc', 'forged bytecode');
    writeFileSync(join(f.results, 'tests.junit.xml'), '<testsuites/>');
    const { kinds, state } = await judge(f);
    expect(kinds).toEqual({
      'tests/test_new.py': 'added',
      'test/b.test.js': 'shadow',
      'tests/test_a/__init__.py': 'shadow',
      'reports/junit.xml': 'report',
      '<results>/tests.junit.xml': 'forged_report',
    });
    const done = await restoreTests(f.snapshot, state, f.results);
    expect(done.removed.sort()).toEqual(['test/b.test.js', 'tests/test_a/__init__.py', 'tests/test_new.py']);
    expect(existsSync(join(f.ws, 'tests/__pycache__'))).toBe(false);
    expect(existsSync(join(f.results, 'tests.junit.xml'))).toBe(false);
    expect(existsSync(join(f.ws, 'pom.xml'))).toBe(true);
  });
});

describe('added lines', () => {
  it('reads the added lines of every file from the patch, binaries from the workspace', async () => {
    const f = await fixture();
    write(f.ws, 'src/a.js', 'export const a = 1;\n++counter;\nconst key = "x";\n');
    write(f.ws, 'odd\tname.txt', 'secret here\n');
    writeFileSync(join(f.ws, 'blob.bin'), Buffer.concat([Buffer.from([0, 1, 2, 255]), Buffer.from('\nAKIA2E3MQ7T4XJ5LQ6WK\n')]));
    unlinkSync(join(f.ws, 'tests/test_a.py'));
    const patchFile = join(f.root, 'diff.patch');
    const diff = await collectDiff({ gitDir: f.baseline.gitDir, workspace: f.ws, baseline: f.baseline.commit, patchFile });
    const scan = await readAddedLines(patchFile, diff, f.ws);
    expect(scan.complete).toBe(true);
    const byPath = Object.fromEntries(scan.files.map((x) => [x.path, x]));
    expect(byPath['src/a.js']?.lines).toEqual([
      { line: 2, text: '++counter;' },
      { line: 3, text: 'const key = "x";' },
    ]);
    expect(byPath['odd\tname.txt']?.lines).toEqual([{ line: 1, text: 'secret here' }]);
    expect(byPath['blob.bin']?.binary).toBe(true);
    expect(byPath['blob.bin']?.lines.some((l) => l.text === 'AKIA2E3MQ7T4XJ5LQ6WK')).toBe(true);
    expect(byPath['tests/test_a.py']).toBeUndefined();
  });

  it('is incomplete when the patch is missing', async () => {
    const scan = await readAddedLines('/nonexistent/diff.patch', { files: [], filesChanged: 0, added: 0, deleted: 0 }, '/nonexistent');
    expect(scan).toMatchObject({ complete: false, incomplete: expect.stringMatching(/missing/) });
  });
});

describe('the outside-writes guard', () => {
  it('reports new entries next to the workspace, anything in the results directory and changes in watched trees', async () => {
    const root = tempDir();
    const attemptDir = join(root, 'attempt');
    const tree = join(root, 'taskset');
    for (const d of ['workspace', 'home', 'tmp', 'results']) mkdirSync(join(attemptDir, d), { recursive: true });
    write(tree, 'repos/x/a.py', 'a = 1\n');
    write(tree, 'tasks.yaml', 'tasks: []\n');
    const guard = await startFsGuard({ attemptDir, resultsDir: join(attemptDir, 'results'), trees: [tree, join(tree, 'repos/x')], exclude: [join(tree, '.crucible')] });
    writeFileSync(join(attemptDir, 'escaped.txt'), 'x');
    writeFileSync(join(attemptDir, 'trajectory.jsonl'), '{}\n'); // an in-process agent's own log: allowed
    writeFileSync(join(attemptDir, 'results', 'tests.junit.xml'), '<testsuites/>');
    write(tree, 'repos/x/a.py', 'a = 2 # poisoned for later attempts\n');
    write(tree, '.crucible/runs/x', 'the harness itself writes here');
    const evidence = await finishFsGuard(guard);
    expect(evidence.writes.map((w) => `${w.kind} ${w.path.slice(root.length)}`).sort()).toEqual([
      'added /attempt/escaped.txt',
      'added /attempt/results/tests.junit.xml',
      'modified /taskset/repos/x/a.py',
    ]);
    expect(evidence.complete).toBe(true);
  });
});
