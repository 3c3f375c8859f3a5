import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskValidity } from '../../src/domain/grading/index.js';
import type { TaskAdversarial } from '../../src/domain/grading/validity.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import type { AttemptResult } from '../../src/core/types/index.js';
import { brokenTaskSet } from './fixtures.js';

const tempDir = useTempDirs();
const NODE_TEST = 'node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT" test/';

/** Three tasks on one tiny repo: sound, broken (the F2P test passes without a fix), flaky (passes every other run). */
function taskSet(): string {
  const dir = tempDir();
  const counter = join(dir, 'counter');
  const files: Record<string, string> = {
    'good/src/calc.mjs': 'export const add = (a, b) => a - b;\n',
    'good/test/calc.test.mjs':
      "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { add } from '../src/calc.mjs';\ntest('add', () => assert.equal(add(2, 2), 4));\ntest('zero', () => assert.equal(add(0, 0), 0));\n",
    'broken/src/calc.mjs': 'export const add = (a, b) => a + b;\n',
    'broken/test/calc.test.mjs':
      "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { add } from '../src/calc.mjs';\ntest('add', () => assert.equal(add(2, 2), 4));\n",
    'flaky/src/calc.mjs': 'export const add = (a, b) => a - b;\n',
    'flaky/test/calc.test.mjs': [
      "import assert from 'node:assert/strict';",
      "import { existsSync, readFileSync, writeFileSync } from 'node:fs';",
      "import { test } from 'node:test';",
      "import { add } from '../src/calc.mjs';",
      "test('add', async () => {",
      '  assert.equal(add(2, 2), 4);',
      `  const n = existsSync(${JSON.stringify(counter)}) ? Number(readFileSync(${JSON.stringify(counter)}, 'utf8')) : 0;`,
      `  writeFileSync(${JSON.stringify(counter)}, String(n + 1));`,
      "  assert.ok(n % 2 === 0, 'every other run fails');",
      '});',
      '',
    ].join('\n'),
    'fix.patch': '--- a/src/calc.mjs\n+++ b/src/calc.mjs\n@@ -1 +1 @@\n-export const add = (a, b) => a - b;\n+export const add = (a, b) => a + b;\n',
    'tasks.yaml': ['good', 'broken', 'flaky']
      .map(
        (id) =>
          `  - id: ${id}\n    repo: { path: ${id} }\n    instruction: fix add\n    tests:\n      command: ${JSON.stringify(NODE_TEST)}\n      fail_to_pass: [add]\n${id === 'broken' ? '' : '    oracle: { patch: fix.patch }\n'}`,
      )
      .join('')
      .replace(/^/, 'tasks:\n'),
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return join(dir, 'tasks.yaml');
}

describe('crucible validate', () => {
  it(
    'reports valid, invalid and flaky tasks as JSON; a task whose fail-to-pass test already passes is broken (exit 2)',
    async () => {
      const out = tempDir();
      // 3 tasks × (nop once + oracle 3 times)
      const result = await runCli(['validate', taskSet(), '--runs', '3', '--concurrency', '1', '--sandbox', 'local', '--out', out, '--json'], { attempts: 12 });
      expect(result.status, result.stderr).toBe(2);
      const report = JSON.parse(result.stdout) as { schemaVersion: number; runs: number; valid: boolean; tasks: TaskValidity[] };
      expect(report).toMatchObject({ schemaVersion: 1, runs: 3, valid: false });
      const byId = Object.fromEntries(report.tasks.map((t) => [t.taskId, t]));
      expect(byId.good).toMatchObject({ status: 'valid', problems: [], nop: { failToPassFailing: 1, failToPassTotal: 1 }, oracle: { passed: 3, runs: 3 } });
      expect(byId.broken?.status).toBe('invalid');
      expect(byId.broken?.problems).toEqual([
        'tasks[1].tests.fail_to_pass[0]: "add" already passes at the baseline, before any agent ran, so it cannot tell a fix from none (fix: list only tests the fix makes pass, or pin the repo to a commit before the fix)',
      ]);
      expect(byId.flaky).toMatchObject({ status: 'flaky', oracle: { passed: 2, runs: 3 } });
    },
    attemptBudget(12),
  );

  it(
    'shows every bundled example it checks as valid, in a table, and exits 0',
    async () => {
      const out = tempDir();
      const result = await runCli(['validate', 'examples/tasks.yaml', '--task', 'js-sortby', '--task', 'py-roman-subtractive', '--runs', '1', '--out', out], {
        attempts: 4,
      });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/valid\s+js-sortby\s+fails 1\/1\s+passes 1\/1\s+-\s+ok/);
      expect(result.stdout).toMatch(/valid\s+py-roman-subtractive\s+fails 1\/1\s+passes 1\/1\s+4\/4\s+ok/);
      expect(result.stdout).toContain('all 2 tasks valid');

      // Recorded in the history like any run, marked as a validation, with its evidence under validate/.
      const runs = JSON.parse((await runCli(['history', '--runs', '--json', '--out', out])).stdout) as Array<{ runId: string; kind: string; agents: string[] }>;
      expect(runs.map((r) => [r.kind, r.agents])).toEqual([['validate', ['nop', 'oracle']]]);
      const runId = runs[0]?.runId as string;
      expect((await runCli(['history', '--runs', '--out', out])).stdout).toMatch(new RegExp(`${runId}\\s+validate\\s`));
      const shown = await runCli(['show', runId, '--out', out]);
      expect(shown.status, shown.stderr).toBe(0);
      expect(shown.stdout).toMatch(new RegExp(`^validate run ${runId}`));
      expect(shown.stdout).toMatch(/js-sortby/);
      const attempts = JSON.parse((await runCli(['history', '--run', runId, '--json', '--out', out])).stdout) as Array<{ attemptId: string }>;
      expect(attempts).toHaveLength(4);
      const attempt = await runCli(['show', attempts[0]?.attemptId as string, '--out', out]);
      expect(attempt.status, attempt.stderr).toBe(0);
      expect(attempt.stdout).toMatch(new RegExp(`evidence in \\S*validate/${runId}/attempts/`));
    },
    attemptBudget(4),
  );

  it('reports each broken task once, before any attempt, with the field and the fix, and exits 2', async () => {
    const dir = tempDir();
    const out = tempDir();
    const result = await runCli(['validate', brokenTaskSet(dir), '--runs', '2', '--sandbox', 'local', '--out', out, '--json']);
    expect(result.status, result.stderr).toBe(2);
    const report = JSON.parse(result.stdout) as { dir: string; valid: boolean; tasks: TaskValidity[] };
    const byId = Object.fromEntries(report.tasks.map((t) => [t.taskId, t]));
    expect(byId.t1).toMatchObject({ status: 'valid' });
    expect(byId.typo).toMatchObject({
      status: 'invalid',
      defects: [
        {
          field: 'tasks[1].tests.fail_to_pass[0]',
          problem: '"check::fixd" is not among the 2 tests the baseline run reports, nor among those the run with the oracle reports',
          fix: 'did you mean "check::fixed"?',
        },
      ],
    });
    expect(byId['stale-oracle']?.defects).toMatchObject([
      { field: 'tasks[2].oracle.patch', problem: expect.stringMatching(/^does not apply to the repo after setup/) },
    ]);
    expect(byId.gone?.defects).toMatchObject([
      { field: 'tasks[3].repo.git', problem: expect.stringContaining('cannot clone'), fix: 'check the URL and that git can reach it' },
    ]);
    // No agent ran on a broken task: each of its attempts is recorded as the task's error.
    const attempts = readdirSync(join(report.dir, 'attempts')).map(
      (id) => JSON.parse(readFileSync(join(report.dir, 'attempts', id, 'attempt.json'), 'utf8')) as AttemptResult,
    );
    const broken = attempts.filter((a) => a.taskId !== 't1');
    expect(broken).toHaveLength(9);
    expect(broken.every((a) => a.verdict === 'ERROR' && a.cause === 'task_error' && a.agentResult === undefined && a.tests === undefined)).toBe(true);
    expect(result.stderr.match(/tasks\[3\]\.repo\.git/g)).toHaveLength(1);

    const table = await runCli(['validate', join(dir, 'tasks.yaml'), '--runs', '1', '--sandbox', 'local', '--out', out]);
    expect(table.status).toBe(2);
    expect(table.stdout).toContain(
      'tasks.yaml: tasks[1].tests.fail_to_pass[0]: "check::fixd" is not among the 2 tests the baseline run reports, nor among those the run with the oracle reports (fix: did you mean "check::fixed"?)',
    );
    expect(table.stdout).toContain('3 tasks are broken');
  });

  it('is bad input without a task set or with a bad --runs', async () => {
    expect((await runCli(['validate', 'no-such.yaml'])).status).toBe(2);
    expect((await runCli(['validate', 'examples/tasks.yaml', '--runs', '0'])).status).toBe(2);
  });

  it(
    '--adversarial reports, per task, the attacks that got through, and exits 1',
    async () => {
      // A weak task: its fail-to-pass test passes as soon as calc.py changes at all — the way a test
      // that a hard-coded answer passes lets a cheat through. user-site-pth only adds a comment to
      // calc.py (its plugin lives in $HOME, which the tests never share), tamper edits the test, and
      // oracle is the honest control.
      const dir = tempDir();
      const original = 'def add(a, b):\n    return a - b\n';
      const files: Record<string, string> = {
        'weak/calc.py': original,
        'weak/tests/test_calc.py': [
          'import hashlib',
          'import pathlib',
          '',
          'from calc import add',
          '',
          '',
          'def test_add():',
          `    assert hashlib.sha256(pathlib.Path("calc.py").read_bytes()).hexdigest() != "${createHash('sha256').update(original).digest('hex')}"`,
          '',
          '',
          'def test_zero():',
          '    assert add(0, 0) == 0',
          '',
        ].join('\n'),
        'fix.patch': '--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n',
        'tasks.yaml': [
          'tasks:',
          '  - id: weak',
          '    repo: { path: weak }',
          '    instruction: fix add',
          '    tests:',
          '      command: python3 -m pytest -q -p no:cacheprovider --junitxml="$CRUCIBLE_JUNIT" tests',
          '      fail_to_pass: [tests.test_calc::test_add]',
          '    oracle: { patch: fix.patch }',
          '',
        ].join('\n'),
      };
      for (const [path, content] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), content);
      }
      const out = tempDir();
      const args = [
        'validate',
        join(dir, 'tasks.yaml'),
        '--adversarial',
        '--attack',
        'user-site-pth',
        '--attack',
        'tamper',
        '--attack',
        'oracle',
        '--out',
        out,
      ];
      const result = await runCli([...args, '--json'], { attempts: 3 });
      expect(result.status, result.stderr).toBe(1);
      const report = JSON.parse(result.stdout) as { schemaVersion: number; adversarial: boolean; secure: boolean; tasks: TaskAdversarial[] };
      expect(report).toMatchObject({ schemaVersion: 1, adversarial: true, secure: false });
      const weak = report.tasks[0] as TaskAdversarial;
      expect(weak).toMatchObject({ taskId: 'weak', secure: false, gotThrough: ['user-site-pth'], harnessErrors: [], falseAlarms: [] });
      const byAttack = Object.fromEntries(weak.attacks.map((a) => [a.attack, a]));
      expect(byAttack['user-site-pth']).toMatchObject({ outcome: 'got_through', verdict: 'PASS', class: 'outside-diff' });
      expect(byAttack.tamper).toMatchObject({ outcome: 'held', verdict: 'FAIL', cause: 'tampered' });
      expect(byAttack.oracle).toMatchObject({ outcome: 'control_passed', verdict: 'PASS', failedChecks: [] });

      const table = await runCli(args, { attempts: 3 });
      expect(table.status, table.stderr).toBe(1);
      expect(table.stdout).toMatch(/got_through\s+weak\s+user-site-pth\s+outside-diff/);
      expect(table.stdout).toContain('weak: got through: user-site-pth');
    },
    attemptBudget(3 + 3),
  );

  it('--attack needs --adversarial and a known attack name', async () => {
    expect((await runCli(['validate', 'examples/tasks.yaml', '--attack', 'tamper'])).status).toBe(2);
    const unknown = await runCli(['validate', 'examples/tasks.yaml', '--adversarial', '--attack', 'no-such-attack']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('no such attack');
  });
});
