import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { parseJUnit } from '../../src/domain/evidence/junit.js';
import { parseInstances } from '../../src/features/importers/swe-bench-instance.js';
import { checkPatchPaths, crucibleTestId, patchPaths } from '../../src/features/importers/swe-bench-patch.js';
import { sweBenchImage, testCommand } from '../../src/features/importers/swe-bench.js';
import { safeRelativePath } from '../../src/features/importers/output.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const PATCH = 'diff --git a/calc/x.py b/calc/x.py\n--- a/calc/x.py\n+++ b/calc/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n';

function row(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    instance_id: 'owner__repo-1',
    repo: 'owner/repo',
    base_commit: 'a'.repeat(40),
    problem_statement: 'fix it',
    patch: PATCH,
    test_patch: PATCH.replace(/calc\/x\.py/g, 'tests/test_x.py'),
    FAIL_TO_PASS: '["tests/test_x.py::test_a"]',
    PASS_TO_PASS: '[]',
    ...overrides,
  };
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
  throw new Error('expected an InputError');
}

describe('crucibleTestId: SWE-bench pytest ids to the ids of the JUnit report', () => {
  it('dots the path, joins classes, keeps parameters', () => {
    expect(crucibleTestId('tests/test_x.py::test_a')).toBe('tests.test_x::test_a');
    expect(crucibleTestId('tests/test_x.py::TestC::test_a[p]')).toBe('tests.test_x.TestC::test_a[p]');
    expect(crucibleTestId('astropy/io/tests/test_a.py::TestA::TestB::test_c[x::y-1.5]')).toBe('astropy.io.tests.test_a.TestA.TestB::test_c[x::y-1.5]');
    expect(crucibleTestId('test_top.py::test_params[a b/c]')).toBe('test_top::test_params[a b/c]');
  });

  it('refuses ids of other runners (Django, sympy)', () => {
    expect(crucibleTestId('test_and (expressions.tests.CombinableTests)')).toBeUndefined();
    expect(crucibleTestId('test_issue_1234')).toBeUndefined();
  });

  it('matches the ids Crucible reads from a real pytest --junitxml report', { timeout: 120_000 }, () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'tests', 'sub'), { recursive: true });
    writeFileSync(
      join(dir, 'tests', 'sub', 'test_m.py'),
      'import pytest\n\ndef test_a():\n    pass\n\nclass TestC:\n    class TestInner:\n        @pytest.mark.parametrize("v", ["x::y", "a b"])\n        def test_p(self, v):\n            pass\n',
    );
    const report = join(dir, 'report.xml');
    execFileSync('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--rootdir=.', `--junitxml=${report}`, 'tests/sub/test_m.py'], { cwd: dir });
    const out = execFileSync('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--rootdir=.', '--collect-only', 'tests/sub/test_m.py'], {
      cwd: dir,
      encoding: 'utf8',
    });
    const nodeIds = out.split('\n').filter((line) => line.includes('::'));
    expect(nodeIds).toHaveLength(3);
    const reported = parseJUnit(readFileSync(report, 'utf8')).cases.map((c) => c.id);
    expect(nodeIds.map((id) => crucibleTestId(id)).sort()).toEqual([...reported].sort());
  });
});

describe('parseInstances', () => {
  it('reads JSON Lines and a JSON array, lists encoded or not', () => {
    const lines = `${JSON.stringify(row())}\n\n${JSON.stringify(row({ instance_id: 'owner__repo-2', FAIL_TO_PASS: ['tests/test_x.py::test_b'] }))}\n`;
    const read = parseInstances(lines, 'i.jsonl');
    expect(read.map((r) => [r.where, r.instance.FAIL_TO_PASS])).toEqual([
      ['i.jsonl:1', ['tests/test_x.py::test_a']],
      ['i.jsonl:3', ['tests/test_x.py::test_b']],
    ]);
    expect(parseInstances(JSON.stringify([row()]), 'i.json')[0]?.where).toBe('i.json: [0]');
  });

  it('names the file and line of a malformed line', () => {
    expect(errorOf(() => parseInstances(`${JSON.stringify(row())}\n{"instance_id": \n`, 'i.jsonl'))).toMatch(
      /^i\.jsonl:2: not valid JSON .*\(fix: one JSON object per line\)$/,
    );
  });

  it('names a missing or malformed field', () => {
    const { patch: _patch, ...noPatch } = row();
    expect(errorOf(() => parseInstances(JSON.stringify(noPatch), 'i.jsonl'))).toMatch(/^i\.jsonl:1: owner__repo-1: field patch is missing \(fix: /);
    expect(errorOf(() => parseInstances(JSON.stringify(row({ FAIL_TO_PASS: '[tests' })), 'i.jsonl'))).toMatch(/field FAIL_TO_PASS is not a JSON list/);
    expect(errorOf(() => parseInstances(JSON.stringify(row({ FAIL_TO_PASS: '[]' })), 'i.jsonl'))).toMatch(/FAIL_TO_PASS is empty/);
    expect(errorOf(() => parseInstances(JSON.stringify(row({ repo: '../etc' })), 'i.jsonl'))).toMatch(/repo "\.\.\/etc" is not owner\/name/);
    expect(errorOf(() => parseInstances(JSON.stringify(row({ instance_id: '../x' })), 'i.jsonl'))).toMatch(/instance_id may contain/);
    expect(errorOf(() => parseInstances(JSON.stringify(row({ base_commit: 'main; rm -rf /' })), 'i.jsonl'))).toMatch(/base_commit .* is not a commit hash/);
  });
});

describe('patch paths', () => {
  it('reads every header, not removed lines that look like one', () => {
    const patch = `${PATCH}diff --git a/old.py b/new.py\nrename from old.py\nrename to new.py\n--- /dev/null\n+++ b/added.py\n@@ -0,0 +1 @@\n+x\n@@ -3 +3 @@\n--- sql comment\n`;
    expect(patchPaths(patch).sort()).toEqual(['added.py', 'calc/x.py', 'new.py', 'old.py']);
  });

  it('refuses paths that escape the repo or write into .git', () => {
    expect(errorOf(() => checkPatchPaths(PATCH.replace(/calc\/x\.py/g, '../outside.py'), 'p'))).toMatch(/path "\.\.\/outside\.py" escapes its directory/);
    expect(errorOf(() => checkPatchPaths('--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n', 'p'))).toMatch(/"\/etc\/passwd" is absolute/);
    expect(errorOf(() => checkPatchPaths(PATCH.replace(/calc\/x\.py/g, '.git/hooks/post-checkout'), 'p'))).toMatch(/writes into \.git/);
    expect(errorOf(() => checkPatchPaths('not a diff', 'p'))).toMatch(/not a unified diff/);
    expect(errorOf(() => safeRelativePath('a/../../b', 'x'))).toMatch(/escapes/);
  });
});

describe('the generated test command', () => {
  it('keeps the patch intact even when it contains the heredoc delimiter', () => {
    const patch = `${PATCH}CRUCIBLE_TEST_PATCH\n`;
    const command = testCommand(patch, ["tests/it's.py"]);
    expect(command).toContain("<<'CRUCIBLE_TEST_PATCH_'");
    expect(command).toContain(`${patch}CRUCIBLE_TEST_PATCH_\n`);
    expect(command).toContain(`'tests/it'\\''s.py'`);
  });

  it('names the published image of an instance', () => {
    expect(sweBenchImage('django__django-11099')).toBe('swebench/sweb.eval.x86_64.django_1776_django-11099:latest');
    expect(sweBenchImage('Owner__Repo-1')).toBe('swebench/sweb.eval.x86_64.owner_1776_repo-1:latest');
  });
});

describe('importSweBench: what it reports', () => {
  const badIds = {
    FAIL_TO_PASS: '["tests/test_x.py::test_a"]',
    PASS_TO_PASS: JSON.stringify([
      'tests/test_x.py::test_ok',
      '/home/author/repo/tests/test_x.py::test_ok',
      'tests/test_x.py::test_unpack[',
      'tests/test_x.py::test_a',
    ]),
    hints_text: 'look at x',
    created_at: '2023-01-01T00:00:00Z',
    environment_setup_commit: 'b'.repeat(40),
    difficulty: '<15 min fix',
    image_name: 'vendor/image:1',
  };

  it('leaves out ids that can never match, keeps the unmapped fields, and says both in one note', async () => {
    const { importSweBench } = await import('../../src/features/importers/index.js');
    const dir = tempDir();
    writeFileSync(join(dir, 'i.jsonl'), `${JSON.stringify(row(badIds))}\n`);
    const result = await importSweBench({ file: join(dir, 'i.jsonl'), out: join(dir, 'out') });
    expect(result.notes).toHaveLength(1);
    expect(result.notes[0]).toMatch(/^owner__repo-1: left out 3 test ids that can never match: PASS_TO_PASS "\/home\/author/);
    expect(result.notes[0]).toContain('not used by Crucible (kept in source/owner__repo-1.json): image_name, hints_text, created_at, environment_setup_commit');
    expect(JSON.parse(readFileSync(join(dir, 'out/source/owner__repo-1.json'), 'utf8'))).toMatchObject({
      hints_text: 'look at x',
      image_name: 'vendor/image:1',
    });
    expect(result.needs).toEqual([expect.stringContaining('swebench/sweb.eval.x86_64.owner_1776_repo-1:latest')]);
    const { loadTaskSet } = await import('../../src/domain/config/index.js');
    const task = loadTaskSet(result.taskSetFile).tasks[0];
    expect(task?.tests.passToPass).toEqual(['tests.test_x::test_ok']);
    expect(task?.metadata.difficulty).toBe('<15 min fix');
  });

  it('--strict refuses the record, naming the id and the fix', async () => {
    const { importSweBench } = await import('../../src/features/importers/index.js');
    const dir = tempDir();
    writeFileSync(join(dir, 'i.jsonl'), `${JSON.stringify(row(badIds))}\n`);
    await expect(importSweBench({ file: join(dir, 'i.jsonl'), out: join(dir, 'out'), strict: true })).rejects.toThrow(
      /i\.jsonl:1: owner__repo-1: 3 test ids can never match, first PASS_TO_PASS "\/home\/author\/repo\/tests\/test_x\.py::test_ok", which is an absolute path.*\(fix: correct or remove them/,
    );
  });
});
