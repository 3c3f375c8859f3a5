import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { addTask, askForMissing, splitPaths, SCAFFOLD_TEST_PATHS } from '../../src/features/authoring/index.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { CLI, runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const NODE_TEST = 'node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT" test/';
const PYTEST = 'python3 -m pytest -q -p no:cacheprovider --junitxml="$CRUCIBLE_JUNIT" checks';

function write(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
}

function commit(dir: string, files: Record<string, string>, message: string): void {
  write(dir, files);
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-q', '-m', message);
}

const TEST_HEAD = "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { add, neg } from '../src/calc.mjs';\n";

/**
 * A small JS project: add() subtracts (the bug); then a commit adds its test, then one fixes it.
 * Two older tests (neg) pass throughout.
 */
function jsProject(root: string): string {
  const repo = join(root, 'calc');
  mkdirSync(repo, { recursive: true });
  gitIn(repo, 'init', '-q', '-b', 'main');
  commit(
    repo,
    {
      'package.json': '{ "name": "calc", "type": "module" }\n',
      'src/calc.mjs': 'export const add = (a, b) => a - b;\nexport const neg = (a) => -a;\n',
      'test/neg.test.mjs': `${TEST_HEAD}test('neg', () => assert.equal(neg(2), -2));\ntest('neg twice', () => assert.equal(neg(neg(3)), 3));\n`,
    },
    'calc: add and neg',
  );
  commit(repo, { 'test/add.test.mjs': `${TEST_HEAD}test('add', () => assert.equal(add(2, 3), 5));\n` }, 'test: add() adds');
  commit(repo, { 'src/calc.mjs': 'export const add = (a, b) => a + b;\nexport const neg = (a) => -a;\n' }, 'Fix add: it subtracted\n\nadd(2, 3) returned -1.');
  return repo;
}

/** An existing task set, hand-written with comments, quoting and a flow map. */
const EXISTING = `# Tasks of the calc project.
defaults:
  limits: { test_timeout: 2m }   # generous on CI

tasks:
  # The first one, written by hand.
  - id: by-hand   # keep this comment
    repo: { path: calc }
    instruction: "Make add add."
    tests:
      command: '${NODE_TEST}'
      fail_to_pass: [add]
`;

describe('crucible task new', () => {
  it(
    'scaffolds a task from A..B: tests from the test commit, the oracle from the fix, F2P and P2P found by running, validated; comments kept',
    async () => {
      const root = tempDir();
      const repo = jsProject(root);
      const taskSet = join(root, 'tasks.yaml');
      writeFileSync(taskSet, EXISTING);
      const result = await runCli(
        [
          'task',
          'new',
          taskSet,
          '--id',
          'fix-add',
          '--repo',
          repo,
          '--from-commits',
          'HEAD~2..HEAD',
          '--test-command',
          NODE_TEST,
          '--runs',
          '1',
          '--out',
          join(root, '.crucible'),
        ],
        { attempts: 4 },
      );
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain('added task fix-add');
      // F2P is the new test; P2P (all_others) is the two older ones, passing on both sides.
      expect(result.stdout).toMatch(/fail_to_pass {2}add\n {2}pass_to_pass {2}all_others \(2 test ids\)/);
      expect(result.stdout).toMatch(/valid\s+fix-add\s+fails 1\/1\s+passes 1\/1/);

      // The existing file is untouched byte for byte; the task follows it.
      const text = readFileSync(taskSet, 'utf8');
      expect(text.startsWith(EXISTING)).toBe(true);
      expect(text).toContain('# TODO');
      const file = parse(text) as { tasks: Array<Record<string, unknown>> };
      expect(file.tasks.map((t) => t.id)).toEqual(['by-hand', 'fix-add']);
      const task = file.tasks[1] as { repo: unknown; instruction: string; tests: Record<string, unknown>; oracle: unknown };
      expect(task.repo).toEqual({ path: 'repos/fix-add' });
      expect(task.oracle).toEqual({ patch: 'oracle/fix-add.patch' });
      expect(task.tests.fail_to_pass).toEqual(['add']);
      expect(task.tests.pass_to_pass).toBe('all_others');
      expect(task.tests.test_paths).toBeUndefined();
      expect(task.instruction).toMatch(/^TODO \(task author\)/);
      expect(task.instruction).toContain('add(2, 3) returned -1.');

      // The starting point is A with B's tests; the oracle is the fix alone.
      expect(readFileSync(join(root, 'repos/fix-add/src/calc.mjs'), 'utf8')).toContain('a - b');
      expect(existsSync(join(root, 'repos/fix-add/test/add.test.mjs'))).toBe(true);
      expect(existsSync(join(root, 'repos/fix-add/.git'))).toBe(false);
      const patch = readFileSync(join(root, 'oracle/fix-add.patch'), 'utf8');
      expect(patch).toContain('+++ b/src/calc.mjs');
      expect(patch).not.toContain('test/');
      // The task set loads as a whole, and no staging file is left beside it.
      expect(loadTaskSet(taskSet).tasks.find((t) => t.id === 'fix-add')?.tests.failToPass).toEqual(['add']);
      expect(readdirSync(root).sort()).toEqual(['.crucible', 'calc', 'oracle', 'repos', 'tasks.yaml']);
      // The author's repository is as it was: no new refs, a clean work tree.
      expect(gitIn(repo, 'status', '--porcelain')).toBe('');
      expect(gitIn(repo, 'for-each-ref', '--format=%(refname)').trim()).toBe('refs/heads/main');

      // The same id again is refused, and nothing changes.
      const again = await runCli(['task', 'new', taskSet, '--id', 'fix-add', '--repo', repo, '--from-commits', 'HEAD~2..HEAD', '--test-command', NODE_TEST]);
      expect(again.status).toBe(2);
      expect(again.stderr).toMatch(/--id fix-add: .* already has a task with this id \(tasks\[1\]\) \(fix: .*--force/);
      expect(readFileSync(taskSet, 'utf8')).toBe(text);
    },
    attemptBudget(4),
  );

  it(
    'lists pass_to_pass when all_others would select a test that fails on both sides; --test-paths is kept in the task; --force replaces',
    async () => {
      const root = tempDir();
      const repo = join(root, 'stats');
      mkdirSync(repo, { recursive: true });
      gitIn(repo, 'init', '-q', '-b', 'main');
      commit(
        repo,
        {
          'stats.py': 'def median(xs):\n    xs = sorted(xs)\n    return xs[len(xs) // 2]\n\ndef mean(xs):\n    return sum(xs) / len(xs)\n',
          'checks/check_old.py': 'from stats import mean\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n\ndef test_broken():\n    assert False\n',
          'pytest.ini': '[pytest]\npython_files = check_*.py\npythonpath = .\n',
        },
        'stats',
      );
      commit(
        repo,
        {
          'stats.py':
            'def median(xs):\n    xs = sorted(xs)\n    n = len(xs)\n    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2\n\ndef mean(xs):\n    return sum(xs) / len(xs)\n',
          'checks/check_median.py':
            'from stats import median\n\ndef test_even():\n    assert median([1, 2, 3, 4]) == 2.5\n\ndef test_odd():\n    assert median([3, 1, 2]) == 2\n',
        },
        'median: mean of the middle two for an even count',
      );
      const taskSet = join(root, 'sets', 'py.yaml');
      const args = [
        'task',
        'new',
        taskSet,
        '--id',
        'median',
        '--repo',
        repo,
        '--from-commits',
        'HEAD',
        '--test-paths',
        'checks/**',
        '--test-command',
        PYTEST,
        '--no-validate',
        '--out',
        join(root, '.crucible'),
      ];
      const result = await runCli(args, { attempts: 2 });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain('not validated (--no-validate)');
      const tests = () => (parse(readFileSync(taskSet, 'utf8')) as { tasks: Array<{ tests: Record<string, unknown> }> }).tasks.map((t) => t.tests);
      expect(tests()).toEqual([
        {
          command: PYTEST,
          fail_to_pass: ['checks.check_median::test_even'],
          // test_broken fails on both sides, so all_others (which would hold it to passing) is not offered.
          pass_to_pass: ['checks.check_median::test_odd', 'checks.check_old::test_mean'],
          test_paths: ['checks/**'],
        },
      ]);
      expect(readFileSync(join(root, 'sets/oracle/median.patch'), 'utf8')).not.toContain('checks/');

      const forced = await runCli([...args, '--force'], { attempts: 2 });
      expect(forced.status, forced.stderr).toBe(0);
      expect(forced.stdout).toContain('replaced task median');
      expect(tests()).toHaveLength(1);
    },
    attemptBudget(4),
  );

  it(
    'refuses bad input with one line naming the flag and the fix, exit 2, and writes nothing',
    async () => {
      const root = tempDir();
      const repo = jsProject(root);
      write(root, { 'plain/readme.txt': 'not a repo\n' });
      const taskSet = join(root, 'tasks.yaml');
      const run = async (...extra: string[]): Promise<{ status: number | null; line: string }> => {
        const r = await runCli(['task', 'new', taskSet, '--id', 'x', '--out', join(root, '.crucible'), ...extra]);
        const lines = r.stderr.trim().split('\n');
        expect(lines, r.stderr).toHaveLength(1);
        return { status: r.status, line: lines[0] ?? '' };
      };
      const cmd = ['--test-command', NODE_TEST];
      const cases: Array<[string[], RegExp]> = [
        [['--repo', join(root, 'plain'), '--from-commits', 'HEAD~1..HEAD', ...cmd], /--repo .*plain: not a git repository \(fix: /],
        [['--repo', repo, '--from-commits', 'HEAD~1..nope', ...cmd], /--from-commits HEAD~1\.\.nope: nope is not a commit of the repository \(fix: /],
        [
          ['--repo', repo, '--from-commits', 'HEAD~1..HEAD', ...cmd],
          /HEAD~1\.\.HEAD: changes no test files, only src\/calc\.mjs \(fix: widen the range .* --test-paths/,
        ],
        [
          ['--repo', repo, '--from-commits', 'HEAD~2..HEAD~1', ...cmd],
          /HEAD~2\.\.HEAD~1: changes only test files \(test\/add\.test\.mjs\), so there is no fix .*\(fix: widen the range to include the fix commit/,
        ],
        [['--repo', repo, '--from-commits', 'HEAD~2..HEAD'], /^error --test-command: missing, .*\(fix: give the command/],
        [['--repo', repo], /^error --from-commits: missing \(fix: /],
        [['--repo', repo, '--from-commits', 'a..b..c', ...cmd], /--from-commits a\.\.b\.\.c: expected A\.\.B/],
      ];
      for (const [args, expected] of cases) {
        const { status, line } = await run(...args);
        expect(status, line).toBe(2);
        expect(line).toMatch(expected);
      }
      const bad = await runCli(['task', 'new', taskSet, '--id', '-x', '--repo', repo, '--from-commits', 'HEAD~2..HEAD', ...cmd]);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toMatch(/--id -x: not a task id/);

      // Tests that cannot tell the fix from none: found by running them, and nothing is left behind.
      const blind = await runCli(
        [
          'task',
          'new',
          taskSet,
          '--id',
          'x',
          '--repo',
          repo,
          '--from-commits',
          'HEAD~2..HEAD',
          '--test-command',
          NODE_TEST.replace('test/', 'test/neg.test.mjs'),
          '--out',
          join(root, '.crucible'),
        ],
        { attempts: 2 },
      );
      expect(blind.status, blind.stderr).toBe(2);
      expect(blind.stderr).toMatch(
        /error --from-commits HEAD~2\.\.HEAD: no test fails before the fix and passes with it \(2 test ids ran; test files: test\/add\.test\.mjs\) \(fix: /,
      );
      // Only the state directory (caches) is new; no task set, repo copy, patch or staging file.
      expect(readdirSync(root).sort()).toEqual(['.crucible', 'calc', 'plain']);
    },
    attemptBudget(3),
  );

  // util-linux `script` (Debian's essential bsdutils) gives the CLI a real terminal on stdin.
  it(
    'in a terminal, asks for the values the flags left out (flags win), with defaults on Enter',
    async () => {
      const root = tempDir();
      const repo = jsProject(root);
      const taskSet = join(root, 'tasks.yaml');
      const command = [process.execPath, CLI, 'task', 'new', taskSet, '--test-command', NODE_TEST, '--no-validate', '--out', join(root, '.crucible')];
      const child = spawn('script', ['-qec', command.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' '), '/dev/null'], {
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let said = '';
      child.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
      // The repository, the range, then Enter for the id drafted from B's subject line.
      child.stdin.write(`${repo}\nHEAD~2..HEAD\n\n`);
      // A hung CLI is killed before the test's own budget runs out, so no process outlives the test.
      const timer = setTimeout(() => child.kill('SIGKILL'), attemptBudget(2) - 5_000);
      const status = await new Promise<number | null>((done) => child.on('close', done));
      clearTimeout(timer);
      expect(status, said).toBe(0);
      expect(said).toContain('Git repository (a directory) [.]: ');
      expect(said).toContain('Task id [fix-add-it-subtracted]: ');
      expect(said).not.toContain('Test command');
      const file = parse(readFileSync(taskSet, 'utf8')) as { tasks: Array<{ id: string; tests: { command: string; fail_to_pass: string[] } }> };
      expect(file.tasks.map((t) => [t.id, t.tests.command, t.tests.fail_to_pass])).toEqual([['fix-add-it-subtracted', NODE_TEST, ['add']]]);
    },
    attemptBudget(2),
  );

  it('--help explains what it writes and how the lists are found', async () => {
    const help = await runCli(['task', 'new', '--help']);
    expect(help.status).toBe(0);
    for (const text of [
      '--from-commits <A..B>',
      'repos/<id>/',
      'oracle/<id>.patch',
      'fail_to_pass is every test',
      'asked for when stdin is a terminal',
      'Exit codes',
    ]) {
      expect(help.stdout).toContain(text);
    }
  });
});

describe('task new, its parts', () => {
  const task = {
    id: 'new-one',
    repo: { path: 'repos/new-one' },
    instruction: 'TODO\n',
    tests: { command: 'true', fail_to_pass: ['a > b'], pass_to_pass: 'all_others' },
  };

  it('splices a task into a block list at its indentation, keeping every other byte; starts a new file; falls back for a flow list', () => {
    const unindented = '# head\ntasks:\n- id: a\n  repo: { path: r }  # r\n  instruction: x\n  tests: { command: "true", fail_to_pass: [t] }\n# tail comment\n';
    const spliced = addTask(unindented, task, { flow: ['repo'] });
    expect(spliced.how).toBe('splice');
    expect(spliced.text.startsWith(unindented.slice(0, unindented.indexOf('# tail')))).toBe(true);
    expect(spliced.text).toContain('\n- id: new-one\n  repo: { path: repos/new-one }\n');
    expect(spliced.text.endsWith('# tail comment\n')).toBe(true);
    expect((parse(spliced.text) as { tasks: unknown[] }).tasks).toEqual([
      { id: 'a', repo: { path: 'r' }, instruction: 'x', tests: { command: 'true', fail_to_pass: ['t'] } },
      task,
    ]);

    const replaced = addTask(spliced.text, { ...task, instruction: 'changed\n' }, { replace: 1 });
    expect(replaced.how).toBe('splice');
    expect((parse(replaced.text) as { tasks: Array<{ instruction: string }> }).tasks.map((t) => t.instruction)).toEqual(['x', 'changed\n']);
    expect(replaced.text).toContain('# tail comment');

    expect(parse(addTask(undefined, task).text)).toEqual({ tasks: [task] });

    const flow = '# kept\ntasks: [{ id: a, repo: { path: r }, instruction: x, tests: { command: "true", fail_to_pass: [t] } }]\n';
    const edited = addTask(flow, task);
    expect(edited.how).toBe('document');
    expect(edited.text).toContain('# kept');
    expect((parse(edited.text) as { tasks: Array<{ id: string }> }).tasks.map((t) => t.id)).toEqual(['a', 'new-one']);
  });

  it('calls test files, runner configuration and nothing else tests', () => {
    const split = splitPaths(
      [
        'src/a.js',
        'test/a.js',
        'lib/x.test.ts',
        'pkg/util_test.js',
        'tests/helpers.py',
        'app/test_x.py',
        'spec/s.rb',
        'vitest.config.ts',
        'README.md',
        'test.js',
        'src/test.js',
      ],
      SCAFFOLD_TEST_PATHS,
    );
    // A package's root test.js (left-pad's shape) is its tests; one deeper down is code.
    expect(split.source).toEqual(['src/a.js', 'README.md', 'src/test.js']);
    expect(split.tests).toEqual([
      'test/a.js',
      'lib/x.test.ts',
      'pkg/util_test.js',
      'tests/helpers.py',
      'app/test_x.py',
      'spec/s.rb',
      'vitest.config.ts',
      'test.js',
    ]);
  });

  it('asks only for what the flags left out, and takes the default on an empty answer', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let said = '';
    output.on('data', (chunk: Buffer) => (said += chunk.toString()));
    input.end('my-task\n\n');
    const answers = await askForMissing({ repo: '/nonexistent', fromCommits: 'A..B' }, { input, output }, { needsTestCommand: true });
    expect(answers).toEqual({ repo: '/nonexistent', fromCommits: 'A..B', id: 'my-task', testCommand: undefined });
    expect(said).toContain('Task id: ');
    expect(said).toContain('Test command');
    expect(said).not.toContain('Git repository');
  });
});
