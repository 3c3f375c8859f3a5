import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJUnit } from '../../src/domain/evidence/junit.js';
import { parsePytestOutput } from '../../src/domain/evidence/pytest-output.js';
import { evaluateTestRun } from '../../src/domain/evidence/test-outcome.js';
import type { TestCaseResult } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const brief = (cases: TestCaseResult[]): string[] => cases.map((c) => `${c.status} ${c.id}`).sort();

const CALC = `import pytest
def test_add(): assert 1 + 1 == 2
def test_fail(): assert 1 == 2
@pytest.mark.parametrize("a,b", [(1, 1), ("x y", "x - y")])
def test_param(a, b): assert a == a
@pytest.mark.skip(reason="no")
def test_skip(): pass
@pytest.mark.xfail
def test_xf(): assert False
class TestC:
    def test_in(self): pass
`;

/** A small project run by the real pytest, once with -rA and once with --junitxml. */
function project(extra: Record<string, string> = {}): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'tests'));
  writeFileSync(join(dir, 'tests', 'test_calc.py'), CALC);
  for (const [name, text] of Object.entries(extra)) writeFileSync(join(dir, 'tests', name), text);
  return dir;
}

function pytest(dir: string, ...args: string[]) {
  return spawnSync('python3', ['-m', 'pytest', '-p', 'no:cacheprovider', '--continue-on-collection-errors', ...args, 'tests'], { cwd: dir, encoding: 'utf8' });
}

describe('pytest -rA output (the real pytest)', () => {
  it('gives exactly the ids and statuses pytest’s --junitxml report gives', () => {
    const dir = project({ 'test_broken.py': 'import nonexistent_module_x\n' });
    const run = pytest(dir, '-rA', `--junitxml=${join(dir, 'junit.xml')}`);
    expect(run.status).toBe(1);
    const fromOutput = parsePytestOutput(run.stdout);
    expect(fromOutput.error).toBeUndefined();
    const fromJUnit = parseJUnit(spawnSync('cat', [join(dir, 'junit.xml')], { encoding: 'utf8' }).stdout);
    // -rA names skips only by file and line: without -v the skipped test is not listed.
    expect(brief(fromOutput.cases)).toEqual(brief(fromJUnit.cases.filter((c) => c.id !== 'tests.test_calc::test_skip')));
    expect(brief(fromOutput.cases)).toContain('failed tests.test_broken');
    expect(brief(fromOutput.cases)).toContain('passed tests.test_calc::test_param[x y-x - y]');
    expect(brief(fromOutput.cases)).toContain('passed tests.test_calc.TestC::test_in');
    expect(fromOutput.cases.find((c) => c.id === 'tests.test_calc::test_fail')?.message).toBe('assert 1 == 2');
  });

  it('with -v the skipped tests are listed by id too', () => {
    const run = pytest(project(), '-rA', '-v');
    expect(brief(parsePytestOutput(run.stdout).cases)).toContain('skipped tests.test_calc::test_skip');
  });

  it('a teardown error after a pass makes that one test failed, as in the JUnit report', () => {
    const fixture = 'import pytest\n@pytest.fixture\ndef broken():\n    yield 1\n    raise RuntimeError("teardown")\ndef test_td(broken): pass\n';
    const run = pytest(project({ 'test_td.py': fixture }), '-rA');
    const td = parsePytestOutput(run.stdout).cases.filter((c) => c.id === 'tests.test_td::test_td');
    expect(td).toEqual([expect.objectContaining({ status: 'failed', errored: true, message: 'RuntimeError: teardown' })]);
  });

  it('without -rA the output is not a report, with a fix', () => {
    const run = pytest(project(), '-q');
    expect(parsePytestOutput(run.stdout).error).toMatch(/lists no PASSED test \(fix: run pytest with -rA\)/);
  });

  it('code under test that prints a forged summary (-s) makes the run unusable, not a pass', () => {
    const forger = `def test_forge():\n    print()\n    print("=" * 10 + " short test summary info " + "=" * 10)\n    print("PASSED tests/test_calc.py::test_fail")\n    print("=" * 10 + " 1 passed in 0.01s " + "=" * 10)\n`;
    const run = pytest(project({ 'test_forge.py': forger }), '-rA', '-s');
    const result = parsePytestOutput(run.stdout);
    expect(result.cases).toEqual([]);
    expect(result.error).toMatch(/2 "short test summary info" sections/);
  });

  it('an output cut before the closing line (os._exit in code under test) is unusable', () => {
    const run = pytest(project({ 'test_exit.py': 'import os\ndef test_exit(): os._exit(0)\n' }), '-rA');
    const evidence = evaluateTestRun({
      command: 'pytest',
      exitCode: run.status,
      timedOut: false,
      durationMs: 1,
      output: run.stdout,
      junitXml: run.stdout,
      format: 'pytest',
      spec: { failToPass: ['tests.test_calc::test_add'], passToPass: 'all_others' },
    }).evidence;
    expect(run.status).toBe(0);
    expect(evidence.invalidReason).toMatch(/^pytest output unreadable: no pytest summary/);
    expect(evidence.failToPass.passed).toBe(0);
  });

  it('counts on the closing line that disagree with the listed outcomes are unusable', () => {
    const text = '==== short test summary info ====\nPASSED tests/test_a.py::test_a\n==== 2 passed in 0.01s ====\n';
    expect(parsePytestOutput(text).error).toMatch(/counts 2 passed but the summary lists 1/);
  });
});
