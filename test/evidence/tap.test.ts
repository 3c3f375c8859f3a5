import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTap } from '../../src/domain/evidence/tap.js';
import { evaluateTestRun } from '../../src/domain/evidence/test-outcome.js';
import type { TestCaseResult } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const fixture = (name: string): string => readFileSync(join(import.meta.dirname, '../fixtures/tap', name), 'utf8');
const brief = (cases: TestCaseResult[]): string[] => cases.map((c) => `${c.status} ${c.id}`);

function ok(text: string): TestCaseResult[] {
  const result = parseTap(text);
  expect(result.error).toBeUndefined();
  return result.cases;
}

function evaluate(text: string, exitCode: number, failToPass: string[], passToPass: string[] | 'all_others' = 'all_others') {
  return evaluateTestRun({
    command: 't',
    exitCode,
    timedOut: false,
    durationMs: 1,
    output: text,
    junitXml: text,
    format: 'tap',
    spec: { failToPass, passToPass },
  }).evidence;
}

describe('TAP from node --test --test-reporter=tap (a real producer)', () => {
  it('gives the same ids as node’s JUnit reporter: describe blocks and names joined by " > "', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'a.test.mjs'),
      [
        "import test, { describe, it } from 'node:test';",
        "import assert from 'node:assert';",
        "describe('math', () => {",
        "  it('adds', () => assert.equal(1 + 1, 2));",
        "  describe('inner', () => { it('deep # hash', () => assert.equal(1, 2)); });",
        '});',
        "test('top', () => { console.log('# looks like a tape test name'); });",
        "test('skipped one', { skip: 'why' }, () => {});",
        "test('todo one', { todo: true }, () => { throw new Error('x'); });",
        "test('parent', async (t) => { await t.test('child', () => {}); throw new Error('parent itself'); });",
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', 'a.test.mjs'], { cwd: dir, encoding: 'utf8' });
    expect(run.status).toBe(1);
    const cases = ok(run.stdout);
    expect(brief(cases)).toEqual([
      'passed math > adds',
      'failed math > inner > deep # hash',
      'passed top',
      'skipped skipped one',
      'skipped todo one',
      'passed parent > child',
      'failed parent',
    ]);
    expect(cases[1]?.message).toBe('1 == 2');
    expect(cases[0]?.durationMs).toBeGreaterThan(0);
    const evidence = evaluate(run.stdout, 1, ['math > inner > deep # hash']);
    expect(evidence.invalidReason).toBeUndefined();
    expect(evidence.consistent).toBe(true);
    expect(evidence.failToPass.failing).toEqual([{ id: 'math > inner > deep # hash', reason: 'failed' }]);
  });

  it('a process.exit(0) in the middle of a run is not a pass: the plan is missing, the exit code disagrees', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'b.test.mjs'),
      "import test from 'node:test';\ntest('first', () => {});\ntest('second', () => { process.exit(0); });\ntest('third', () => {});\n",
    );
    const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', 'b.test.mjs'], { cwd: dir, encoding: 'utf8' });
    const evidence = evaluate(run.stdout, run.status ?? 1, ['third']);
    expect(evidence.failToPass.passed).toBe(0);
    expect(evidence.invalidReason === undefined ? evidence.consistent && evidence.failToPass.passed === 1 : false).toBe(false);
  });
});

describe('TAP shapes of tape, node-tap and Test::More', () => {
  it('tape: a `# name` comment opens a test, its assertions decide it; the same name twice is a duplicate id', () => {
    expect(brief(ok(fixture('tape-pass.tap')))).toEqual(['passed adds numbers', 'passed strips punctuation', 'skipped skips one', 'passed adds numbers']);
    const evidence = evaluate(fixture('tape-pass.tap'), 0, ['strips punctuation']);
    expect(evidence.duplicates).toEqual({ ids: 1, cases: 2, examples: [{ id: 'adds numbers', cases: 2 }] });
    expect(evidence.failToPass.passed).toBe(1);
  });

  it('tape: a failed assertion fails its test, with the assertion as the message', () => {
    const cases = ok(fixture('tape-fail.tap'));
    expect(brief(cases)).toEqual(['passed adds numbers', 'failed strips punctuation']);
    expect(cases[1]?.message).toBe('should be equal');
    expect(evaluate(fixture('tape-fail.tap'), 1, ['strips punctuation']).consistent).toBe(true);
  });

  it('tape cut by a crash: the running test fails, [no plan] fails, and tests that never ran are missing', () => {
    const cases = ok(fixture('tape-crash.tap'));
    expect(brief(cases)).toEqual(['passed adds numbers', 'failed strips punctuation', 'failed [no plan]']);
    expect(cases[1]?.message).toMatch(/did not finish/);
    expect(cases[2]?.message).toMatch(/ended without a plan after test 1/);
    const evidence = evaluate(fixture('tape-crash.tap'), 1, ['strips punctuation', 'keeps digits'], ['adds numbers']);
    expect(evidence.invalidReason).toBeUndefined();
    expect(evidence.failToPass.failing).toEqual([
      { id: 'strips punctuation', reason: 'failed' },
      expect.objectContaining({ id: 'keeps digits', reason: 'missing' }),
    ]);
    expect(evidence.passToPass.passed).toBe(1);
  });

  it('the same crash with exit 0 is inconsistent, so it cannot pass', () => {
    expect(evaluate(fixture('tape-crash.tap'), 0, ['adds numbers'], []).consistent).toBe(false);
  });

  it('a plan 1..N cut short: the numbers that never reported are failures', () => {
    const cases = ok(fixture('perl-cut.tap'));
    expect(brief(cases)).toEqual(['passed parses the header', 'failed parses the body', 'failed [did not run] #3', 'failed [did not run] #4']);
    expect(cases[2]?.message).toBe('did not run: the stream ended at test 2');
  });

  it('Bail out! ends the stream: what follows is not read, the rest of the plan did not run', () => {
    expect(brief(ok(fixture('bail.tap')))).toEqual(['passed connects', 'failed [bail out]', 'failed [did not run] #2', 'failed [did not run] #3']);
  });

  it('node-tap (TAP 14): subtest paths, TODO and SKIP directives, # time= is not part of the id', () => {
    const cases = ok(fixture('node-tap-14.tap'));
    expect(brief(cases)).toEqual(['passed parser > numbers > reads ints', 'passed parser > numbers > reads floats', 'failed parser > strings', 'skipped cli']);
    expect(cases[2]?.message).toBe("expected 'a' to equal 'b'");
    expect(cases[3]?.message).toBe('needs a tty');
  });

  it('node-tap cut inside a subtest: the open subtest did not finish, the plan never came', () => {
    expect(brief(ok(fixture('node-tap-cut.tap')))).toEqual(['passed parser > numbers > reads ints', 'failed parser > numbers', 'failed [no plan]']);
  });

  it('Test::More through prove -v (a real producer): ids start with the file', () => {
    const dir = tempDir();
    const t = (name: string, body: string): void => writeFileSync(join(dir, name), `use strict; use warnings; use Test::More;\n${body}\n`);
    t('a.t', "ok(1, 'adds');\nsubtest 'group' => sub { plan tests => 1; ok(1, 'inner'); };\ndone_testing();");
    t('b.t', "plan tests => 3;\nok(1, 'first');\nok(0, 'second');\nexit 0;");
    const run = spawnSync('prove', ['-v', '--merge', 'a.t', 'b.t'], { cwd: dir, encoding: 'utf8' });
    expect(run.status).toBe(1);
    // Test::More's own diagnostics (`#   Failed test 'second'`) are comments, not test names.
    expect(run.stdout).toContain('#   Failed test');
    const cases = ok(run.stdout);
    expect(brief(cases)).toEqual([
      'passed a.t > adds',
      'passed a.t > group > inner',
      'passed b.t > first',
      'failed b.t > second',
      'failed b.t > [did not run] #3',
    ]);
  });
});

describe('TAP streams that cannot be honest are unusable, not passing', () => {
  const bad: Array<[string, string, RegExp]> = [
    ['a repeated test number', 'TAP version 13\nok 1 - a\nok 1 - a\n1..2\n', /test number 1 repeated/],
    ['a number out of order', 'ok 1 - a\nok 3 - c\n1..3\n', /out of order/],
    ['two plans', '1..1\nok 1 - a\n1..1\n', /second plan/],
    ['a closing plan that disagrees', 'ok 1 - a\nok 2 - b\n1..3\n', /disagrees with the 2 tests/],
    ['a test beyond the plan', '1..1\nok 1 - a\nok 2 - b\n', /beyond the plan/],
    ['a test after the closing plan', 'ok 1 - a\n1..1\nok 2 - forged\n', /after the closing plan/],
    ['no TAP at all', 'Error: Cannot find module tape\n', /no TAP in the output/],
    ['a subtest whose plan disagrees', '    ok 1 - x\n    1..2\nok 1 - parent\n1..1\n', /plan 1..2 disagrees with the 1 tests seen in subtest/],
  ];
  it.each(bad)('%s', (_name, text, error) => {
    const result = parseTap(text);
    expect(result.cases).toEqual([]);
    expect(result.error).toMatch(error);
    const evidence = evaluate(text, 0, ['a']);
    expect(evidence.invalidReason).toMatch(/^TAP stream unreadable|^TAP stream/);
    expect(evidence.failToPass.passed).toBe(0);
  });

  it('a forged passing stream printed before the real one makes the run unusable', () => {
    const forged = 'TAP version 13\nok 1 - fixes the bug\n1..1\n';
    const real = 'TAP version 13\n# Subtest: fixes the bug\nnot ok 1 - fixes the bug\n1..1\n';
    expect(parseTap(forged + real).error).toMatch(/repeated|second plan/);
  });

  it('YAML diagnostics cannot smuggle test points', () => {
    const text = 'not ok 1 - real\n  ---\n  message: boom\n  stack: |-\nok 2 - smuggled\n  ...\n1..1\n';
    expect(brief(ok(text))).toEqual(['failed real']);
  });

  it('subtests nested absurdly deep are refused rather than walked', () => {
    expect(parseTap(`${' '.repeat(4 * 100_000)}ok 1 - deep\n`).error).toMatch(/nested deeper than 64 levels/);
  });

  it('a huge plan cut short stays bounded', () => {
    const cases = ok('1..1000000\nok 1 - a\n');
    expect(cases).toHaveLength(102);
    expect(cases.at(-1)?.id).toBe('[did not run] #102..#1000000');
  });

  it('a plan 1..0 with no tests is an empty report, which a run treats as invalid', () => {
    expect(ok('1..0 # SKIP no tests here\n')).toEqual([]);
    expect(evaluate('1..0\n', 0, ['a']).invalidReason).toBe('TAP stream contains no test cases');
  });
});

describe('run markers', () => {
  it('names the cases a cut-short stream adds, and no real test', async () => {
    const { isRunMarkerId } = await import('../../src/domain/evidence/index.js');
    for (const id of [
      '[no plan]',
      '[bail out]',
      '[did not run] #3',
      '[did not run] #4..#9',
      'pkg/x::[build failed]',
      'pkg::[did not finish]',
      '[suite 2 did not finish]',
      't/a.t > [no plan]',
    ]) {
      expect(isRunMarkerId(id), id).toBe(true);
    }
    for (const id of ['no plan', '[no plan] extra', 'parses [bail out] lines', 'a::b', '[did not run] #x']) expect(isRunMarkerId(id), id).toBe(false);
  });
});
