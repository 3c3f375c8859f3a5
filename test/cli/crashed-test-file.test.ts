/**
 * A fail-to-pass test whose file throws while it loads at the baseline, in the shape of two real
 * npm fixes (object-inspect 1.13.3 -> 1.13.4, qs 6.10.0 -> 6.10.1): the buggy code throws as the
 * test file loads, so the runner reports one failure for the file and none of its tests. The id is
 * missing at the baseline and reported (passing) with the oracle, so it counts as failing at the
 * baseline, as SWE-bench counts it: the task validates. An id absent on both sides is still the
 * task's defect, and its "did you mean" names only a close id. Built here from local files: no network.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskValidity } from '../../src/domain/grading/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const NODE_TEST = 'node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT" test/';

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** index.js as the buggy version ships it: quote() throws, and test/quote.js calls it at load. */
const BUGGY = [
  "'use strict';",
  'function quote(s) {',
  "  return String(s).replace(/'/g, \"\\\\'\").replace(undefined, '');",
  '}',
  'module.exports = function inspect(obj) {',
  '  if (typeof obj === \'string\') return "\'" + quote(obj) + "\'";',
  '  return String(obj);',
  '};',
  'module.exports.quote = function (s) {',
  "  if (typeof s !== 'string') throw new TypeError('quote: expected a string');",
  '  return quote(s.toUpperCase().toLowerCase(), s.missing.length);',
  '};',
  '',
].join('\n');

const FIXED = BUGGY.replace('  return quote(s.toUpperCase().toLowerCase(), s.missing.length);', '  return quote(s);');

/** The package at the buggy version, the fix as a patch, and a task set of three tasks on it. */
function taskSet(): string {
  const dir = tempDir();
  const pkg = join(dir, 'inspect');
  write(pkg, {
    'package.json': '{ "name": "object-inspect", "version": "1.13.3", "main": "index.js" }\n',
    'index.js': BUGGY,
    'test/basic.js': [
      "const test = require('node:test');",
      "const assert = require('node:assert');",
      "const inspect = require('../index.js');",
      "test('inspects a number', () => assert.strictEqual(inspect(1), '1'));",
      "test('inspects a string', () => assert.strictEqual(inspect('a'), \"'a'\"));",
      '',
    ].join('\n'),
    // As the published test file does: a value computed at load, with the code under test.
    'test/quote.js': [
      "const test = require('node:test');",
      "const assert = require('node:assert');",
      "const inspect = require('../index.js');",
      'const quoted = inspect.quote("it\'s");',
      "test('quotes a string', () => assert.strictEqual(quoted, \"it\\\\'s\"));",
      '',
    ].join('\n'),
  });
  // The fix, as `git diff` of the next version's index.js.
  const scratch = join(dir, 'scratch');
  write(scratch, { 'index.js': BUGGY });
  const git = (...args: string[]): string => execFileSync('git', ['-C', scratch, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { encoding: 'utf8' });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'buggy');
  writeFileSync(join(scratch, 'index.js'), FIXED);
  writeFileSync(join(dir, 'fix.patch'), git('diff'));
  const task = (id: string, failToPass: string): string =>
    [
      `  - id: ${id}`,
      '    repo: { path: inspect }',
      '    instruction: quote() throws on a string; fix it',
      '    tests:',
      `      command: ${JSON.stringify(NODE_TEST)}`,
      `      fail_to_pass: [${JSON.stringify(failToPass)}]`,
      '    oracle: { patch: fix.patch }',
    ].join('\n');
  const file = join(dir, 'tasks.yaml');
  writeFileSync(file, `tasks:\n${[task('crash', 'quotes a string'), task('typo', 'quotes a strng'), task('unrelated', 'formats a date')].join('\n')}\n`);
  return file;
}

describe('a fail-to-pass test whose file crashes at the baseline', () => {
  it(
    'counts as failing when the oracle run reports it: the task validates; an id absent on both sides is refused, with a "did you mean" only for a close id',
    async () => {
      const out = tempDir();
      const result = await runCli(['validate', taskSet(), '--runs', '1', '--concurrency', '1', '--sandbox', 'local', '--out', out, '--json'], {
        attempts: 2,
      });
      const report = JSON.parse(result.stdout) as { tasks: TaskValidity[] };
      const byId = Object.fromEntries(report.tasks.map((t) => [t.taskId, t]));
      expect(byId.crash, result.stderr).toMatchObject({
        status: 'valid',
        problems: [],
        nop: { failToPassFailing: 1, failToPassTotal: 1 },
        oracle: { passed: 1, runs: 1 },
      });
      expect(byId.typo).toMatchObject({
        status: 'invalid',
        defects: [
          {
            field: 'tasks[1].tests.fail_to_pass[0]',
            problem: '"quotes a strng" is not among the 3 tests the baseline run reports, nor among those the run with the oracle reports',
            fix: 'did you mean "quotes a string"?',
          },
        ],
      });
      // Nothing close: no test of another name is offered in its place.
      expect(byId.unrelated?.defects?.[0]?.fix).not.toMatch(/did you mean/);
      // Broken tasks make validate exit 2, as for run.
      expect(result.status).toBe(2);
    },
    attemptBudget(4),
  );
});
