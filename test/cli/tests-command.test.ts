import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ListedTest } from '../../src/engine/index.js';
import type { TaskValidity } from '../../src/domain/grading/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

interface TestsJson {
  taskId: string;
  runs: Array<{
    at: string;
    exitCode: number;
    tests: ListedTest[];
    duplicates: { ids: number; cases: number; examples: Array<{ id: string; cases: number }> } | null;
  }>;
}

/** js-slugify as examples/tasks.yaml declares it. */
function declaredSlugify(): { fail_to_pass: string[]; pass_to_pass: string[] | 'all_others' } {
  const file = parse(readFileSync('examples/tasks.yaml', 'utf8')) as {
    tasks: Array<{ id: string; tests: { fail_to_pass: string[]; pass_to_pass: string[] | 'all_others' } }>;
  };
  const task = file.tasks.find((t) => t.id === 'js-slugify');
  if (!task) throw new Error('examples/tasks.yaml has no js-slugify');
  return task.tests;
}

const NODE_TEST = 'node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT" test/';
const FIX = '--- a/src/calc.mjs\n+++ b/src/calc.mjs\n@@ -1 +1 @@\n-export const add = (a, b) => a - b;\n+export const add = (a, b) => a + b;\n';

/**
 * A tiny repo whose two test files both have a top-level `zero` test (node's report names no file,
 * so the id repeats), and a task set over it with the given fail_to_pass.
 */
function calcTaskSet(failToPass: string, opts: { oracle?: boolean; patch?: string; setup?: string } = {}): string {
  const dir = tempDir();
  const head = "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { add } from '../src/calc.mjs';\n";
  const files: Record<string, string> = {
    'repo/src/calc.mjs': 'export const add = (a, b) => a - b;\n',
    'repo/test/a.test.mjs': `${head}test('add', async () => assert.equal(add(2, 2), 4));\ntest('zero', () => assert.equal(add(0, 0), 0));\n`,
    'repo/test/b.test.mjs': `${head}test('zero', async () => assert.equal(add(1, 0), 1));\n`,
    'fix.patch': opts.patch ?? FIX,
    'tasks.yaml': [
      'tasks:',
      '  - id: calc',
      '    repo: { path: repo }',
      '    instruction: fix add',
      '    tests:',
      `      command: ${JSON.stringify(NODE_TEST)}`,
      `      fail_to_pass: [${JSON.stringify(failToPass)}]`,
      ...(opts.setup ? [`    setup: [${JSON.stringify(opts.setup)}]`] : []),
      ...(opts.oracle === false ? [] : ['    oracle: { patch: fix.patch }']),
      '',
    ].join('\n'),
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return join(dir, 'tasks.yaml');
}

describe('crucible tests', () => {
  it(
    "--suggest on the bundled js-slugify prints the task's own fail_to_pass and pass_to_pass, and leaves nothing behind",
    async () => {
      const out = tempDir();
      const suggested = await runCli(['tests', 'examples/tasks.yaml', '--task', 'js-slugify', '--suggest', '--out', out], { attempts: 2 });
      expect(suggested.status, suggested.stderr).toBe(0);
      const yaml = parse(suggested.stdout) as { fail_to_pass: string[]; pass_to_pass: string[] };
      const declared = declaredSlugify();
      expect(yaml.fail_to_pass).toEqual(declared.fail_to_pass);

      // The task says all_others: every other id the baseline reports, which is what the listing shows.
      expect(declared.pass_to_pass).toBe('all_others');
      const listed = await runCli(['tests', 'examples/tasks.yaml', '--task', 'js-slugify', '--json', '--out', out], { attempts: 1 });
      expect(listed.status, listed.stderr).toBe(0);
      const baselineIds = (JSON.parse(listed.stdout) as TestsJson).runs[0]?.tests.map((t) => t.id) ?? [];
      expect(yaml.pass_to_pass.length).toBeGreaterThan(0);
      expect(yaml.pass_to_pass).toEqual(baselineIds.filter((id) => !declared.fail_to_pass.includes(id)));
      expect(suggested.stdout).toContain('`pass_to_pass: all_others` selects the same tests');

      // Setup progress on stderr; the scratch copy is gone.
      expect(suggested.stderr).toContain('preparing js-slugify');
      expect(suggested.stderr).toContain('applying the oracle patch');
      expect(existsSync(join(out, 'tests'))).toBe(false);
      expect(readdirSync(out).filter((e) => e !== 'cache')).toEqual([]);
    },
    attemptBudget(3),
  );

  it(
    'lists every id with its outcome at the baseline and with the oracle applied',
    async () => {
      const out = tempDir();
      const at = async (side: string): Promise<ListedTest[]> => {
        const result = await runCli(['tests', 'examples/tasks.yaml', '--task', 'js-slugify', '--at', side, '--json', '--out', out], { attempts: 1 });
        expect(result.status, result.stderr).toBe(0);
        const json = JSON.parse(result.stdout) as TestsJson;
        expect(json.runs.map((r) => r.at)).toEqual([side]);
        return json.runs[0]?.tests ?? [];
      };
      const [f2p] = declaredSlugify().fail_to_pass;
      const baseline = await at('baseline');
      const oracle = await at('oracle');
      expect(baseline.find((t) => t.id === f2p)).toEqual({ id: f2p, outcome: 'failed', cases: 1 });
      expect(oracle.find((t) => t.id === f2p)).toEqual({ id: f2p, outcome: 'passed', cases: 1 });
      expect(oracle.map((t) => t.id).sort()).toEqual(baseline.map((t) => t.id).sort());
      expect(baseline.filter((t) => t.id !== f2p).every((t) => t.outcome === 'passed')).toBe(true);
      expect(oracle.every((t) => t.outcome === 'passed')).toBe(true);

      // The text form: outcome, then the id exactly as the task set writes it.
      const text = await runCli(['tests', 'examples/tasks.yaml', '--task', 'js-slugify', '--out', out], { attempts: 1 });
      expect(text.stdout).toMatch(new RegExp(`^ {2}failed {3}${f2p}$`, 'm'));
    },
    attemptBudget(3),
  );

  it(
    'flags an id two test cases share, and --suggest leaves it out of both lists',
    async () => {
      const tasks = calcTaskSet('add');
      const out = tempDir();
      const listed = await runCli(['tests', tasks, '--task', 'calc', '--sandbox', 'local', '--out', out], { attempts: 1 });
      expect(listed.status, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(/^ {2}passed {3}zero {2}\[duplicate id: 2 cases\]$/m);
      expect(listed.stdout).toContain('2 cases share 1 id');
      const suggested = await runCli(['tests', tasks, '--task', 'calc', '--sandbox', 'local', '--suggest', '--out', out], { attempts: 2 });
      expect(suggested.status, suggested.stderr).toBe(0);
      expect(parse(suggested.stdout)).toEqual({ fail_to_pass: ['add'], pass_to_pass: [] });
      expect(suggested.stdout).toContain('Left out, reported by more than one case (a listed id must be unique): zero');
    },
    attemptBudget(3),
  );

  it(
    'validate warns about ids that all_others collapses, naming how many cases and ids',
    async () => {
      const out = tempDir();
      const result = await runCli(['validate', calcTaskSet('add'), '--runs', '1', '--sandbox', 'local', '--out', out, '--json'], { attempts: 3 });
      const report = JSON.parse(result.stdout) as { tasks: TaskValidity[] };
      const [calc] = report.tasks;
      // The warning is not a failure: the fail-to-pass test still tells the fix from none.
      expect(result.status, result.stderr).toBe(0);
      expect(calc?.status).toBe('valid');
      expect(calc?.duplicateIds).toEqual({ ids: 1, cases: 2, examples: [{ id: 'zero', cases: 2 }] });
      expect(calc?.notes.join('\n')).toMatch(/^warning: pass_to_pass all_others: 2 test cases are reported under only 1 id \("zero" ×2\)/m);
    },
    attemptBudget(3),
  );

  it(
    'a misspelt fail_to_pass id fails validation with the nearest real id suggested',
    async () => {
      const out = tempDir();
      const result = await runCli(['validate', calcTaskSet('ad'), '--runs', '1', '--sandbox', 'local', '--out', out], { attempts: 3 });
      expect(result.status, result.stderr).toBe(2);
      expect(result.stdout).toContain(
        'tasks[0].tests.fail_to_pass[0]: "ad" is not among the 3 tests the baseline run reports, nor among those the run with the oracle reports (fix: did you mean "add"?)',
      );
    },
    attemptBudget(3),
  );

  it(
    'a task that cannot be prepared, or whose oracle patch does not apply, is one line naming the field, exit 2, and nothing is left',
    async () => {
      const out = tempDir();
      const cases: Array<{ tasks: string; argv: string[]; says: RegExp }> = [
        {
          tasks: calcTaskSet('add', { patch: FIX.replace('a - b', 'a * b') }),
          argv: ['--at', 'oracle'],
          says: /^error .*tasks\.yaml: tasks\[0\]\.oracle\.patch: does not apply to the repo after setup \(error: patch failed: src\/calc\.mjs:1\) \(fix: make it a `git diff`/,
        },
        {
          tasks: calcTaskSet('add', { setup: 'exit 3' }),
          argv: [],
          says: /^error .*tasks\.yaml: tasks\[0\]: task calc could not be prepared: .*`exit 3`/,
        },
      ];
      for (const c of cases) {
        const result = await runCli(['tests', c.tasks, '--task', 'calc', '--sandbox', 'local', '--out', out, ...c.argv], { attempts: 1 });
        expect(result.status, result.stderr).toBe(2);
        const errors = result.stderr.split('\n').filter((l) => l.startsWith('error'));
        expect(errors).toHaveLength(1);
        expect(errors[0]).toMatch(c.says);
        expect(existsSync(join(out, 'tests'))).toBe(false);
      }
    },
    attemptBudget(2),
  );

  it(
    'a test command that writes no report exits 1 and shows why, with the end of its output',
    async () => {
      const tasks = calcTaskSet('add');
      writeFileSync(tasks, readFileSync(tasks, 'utf8').replace(/command: .*/, 'command: "echo the runner said this; exit 1"'));
      const result = await runCli(['tests', tasks, '--task', 'calc', '--sandbox', 'local', '--out', tempDir()], { attempts: 1 });
      expect(result.status, result.stderr).toBe(1);
      expect(result.stdout).toBe('calc at the baseline: 0 test ids, exit 1\n');
      expect(result.stderr).toMatch(
        /^error .*tasks\.yaml: tasks\[0\]\.tests\.command: the run at the baseline gives no usable report \(test command wrote no JUnit report\) \(fix: .*\$CRUCIBLE_JUNIT\)\nthe runner said this$/m,
      );
    },
    attemptBudget(1),
  );

  it(
    '--suggest on a task without an oracle reads the baseline alone, and a one-task set needs no --task',
    async () => {
      const tasks = calcTaskSet('TODO', { oracle: false });
      const suggested = await runCli(['tests', tasks, '--sandbox', 'local', '--suggest', '--out', tempDir()], { attempts: 1 });
      expect(suggested.status, suggested.stderr).toBe(0);
      // `add` fails at the baseline (a - b): a candidate; `zero` is reported by two cases, so left out.
      expect(parse(suggested.stdout)).toEqual({ fail_to_pass: ['add'], pass_to_pass: [] });
      expect(suggested.stdout).toContain('# No oracle patch: read from the baseline alone. 1 fail there');
      expect(suggested.stdout).toContain('Left out, reported by more than one case: zero');
      expect(suggested.stderr).toMatch(/calc at the baseline: 2 test ids \(1 passed, 1 failed\), exit 1/);
    },
    attemptBudget(1),
  );

  it('bad inputs end in one line and exit 2, before any work', async () => {
    const out = tempDir();
    const noOracle = calcTaskSet('add', { oracle: false });
    const cases: Array<{ argv: string[]; says: RegExp }> = [
      {
        argv: ['examples/tasks.yaml', '--task', 'js-slugfy'],
        says: /^error --task js-slugfy: no such task in examples\/tasks\.yaml \(fix: did you mean js-slugify\? use one of js-slugify, /,
      },
      { argv: ['nope.yaml', '--task', 'x'], says: /^error nope\.yaml: no such task-set file/ },
      {
        argv: ['examples/tasks.yaml', '--task', 'js-slugify', '--at', 'head'],
        says: /^error --at head: not a side \(fix: use --at baseline or --at oracle\)$/,
      },
      { argv: ['examples/tasks.yaml', '--task', 'js-slugify', '--at', 'oracle', '--suggest'], says: /^error --at oracle: not with --suggest/ },
      { argv: [noOracle, '--task', 'calc', '--at', 'oracle'], says: /^error .*: task calc has no oracle patch; --at oracle runs/ },
      {
        argv: ['examples/tasks.yaml'],
        says: /^error --task: examples\/tasks\.yaml has 6 tasks \(fix: pick one with --task ID: js-slugify, js-sortby, js-csv-quoting, ts-lru-recency, py-median, …\)$/,
      },
    ];
    for (const c of cases) {
      const result = await runCli(['tests', ...c.argv, '--out', out]);
      expect(result.status, `${c.argv.join(' ')}: ${result.stderr}`).toBe(2);
      const lines = result.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('(run with --help'));
      expect(lines, c.argv.join(' ')).toHaveLength(1);
      expect(lines[0], c.argv.join(' ')).toMatch(c.says);
      expect(result.stdout).toBe('');
    }
    expect(existsSync(join(out, 'tests'))).toBe(false);
  });
});
