import { describe, expect, it } from 'vitest';
import { parseCargoTestJson } from '../../src/domain/evidence/cargo-json.js';
import { parseGoTestJson } from '../../src/domain/evidence/go-json.js';
import { evaluateTestRun } from '../../src/domain/evidence/test-outcome.js';
import type { TestCaseResult, TestFormat } from '../../src/core/types/index.js';

const brief = (cases: TestCaseResult[]): string[] => cases.map((c) => `${c.status} ${c.id}`);
const lines = (...events: object[]): string => `${events.map((e) => JSON.stringify(e)).join('\n')}\n`;

function evaluate(format: TestFormat, text: string, exitCode: number, failToPass: string[]) {
  return evaluateTestRun({
    command: 't',
    exitCode,
    timedOut: false,
    durationMs: 1,
    output: text,
    junitXml: text,
    format,
    spec: { failToPass, passToPass: 'all_others' },
  }).evidence;
}

// Recorded in test2json's documented shape (`go doc test2json`): Go is not installed here.
const T = '2024-05-01T10:00:00.000000Z';
const goRun = lines(
  { Time: T, Action: 'start', Package: 'example.com/calc' },
  { Time: T, Action: 'run', Package: 'example.com/calc', Test: 'TestAdd' },
  { Time: T, Action: 'output', Package: 'example.com/calc', Test: 'TestAdd', Output: '=== RUN   TestAdd\n' },
  { Time: T, Action: 'output', Package: 'example.com/calc', Test: 'TestAdd', Output: '--- PASS: TestAdd (0.00s)\n' },
  { Time: T, Action: 'pass', Package: 'example.com/calc', Test: 'TestAdd', Elapsed: 0.001 },
  { Time: T, Action: 'run', Package: 'example.com/calc', Test: 'TestTable' },
  { Time: T, Action: 'run', Package: 'example.com/calc', Test: 'TestTable/negative_numbers' },
  { Time: T, Action: 'output', Package: 'example.com/calc', Test: 'TestTable/negative_numbers', Output: '    calc_test.go:21: got -1, want 1\n' },
  { Time: T, Action: 'fail', Package: 'example.com/calc', Test: 'TestTable/negative_numbers', Elapsed: 0 },
  { Time: T, Action: 'run', Package: 'example.com/calc', Test: 'TestTable/zero' },
  { Time: T, Action: 'skip', Package: 'example.com/calc', Test: 'TestTable/zero', Elapsed: 0 },
  { Time: T, Action: 'fail', Package: 'example.com/calc', Test: 'TestTable', Elapsed: 0.002 },
  { Time: T, Action: 'output', Package: 'example.com/calc', Output: 'FAIL\n' },
  { Time: T, Action: 'fail', Package: 'example.com/calc', Elapsed: 0.01 },
  { Time: T, Action: 'output', Package: 'example.com/calc/parse', Output: 'FAIL\texample.com/calc/parse [build failed]\n' },
  { Time: T, Action: 'fail', Package: 'example.com/calc/parse', Elapsed: 0 },
  { Time: T, Action: 'output', Package: 'example.com/calc/none', Output: '?   \texample.com/calc/none\t[no test files]\n' },
  { Time: T, Action: 'skip', Package: 'example.com/calc/none', Elapsed: 0 },
);

describe('go test -json', () => {
  it('ids are import/path::Test/subtest (go-junit-report’s form); a package that did not build fails as [build failed]', () => {
    const result = parseGoTestJson(goRun);
    expect(result.error).toBeUndefined();
    expect(brief(result.cases)).toEqual([
      'passed example.com/calc::TestAdd',
      'failed example.com/calc::TestTable/negative_numbers',
      'skipped example.com/calc::TestTable/zero',
      'failed example.com/calc::TestTable',
      'failed example.com/calc/parse::[build failed]',
    ]);
    expect(result.cases[1]?.message).toBe('calc_test.go:21: got -1, want 1');
    expect(result.cases[0]?.durationMs).toBe(1);
    expect(evaluate('go-json', goRun, 1, ['example.com/calc::TestTable/negative_numbers']).consistent).toBe(true);
  });

  it('a panic that kills the test binary: the running test fails and the package did not finish', () => {
    const cut = lines(
      { Action: 'run', Package: 'p', Test: 'TestA' },
      { Action: 'pass', Package: 'p', Test: 'TestA' },
      { Action: 'run', Package: 'p', Test: 'TestB' },
      { Action: 'output', Package: 'p', Test: 'TestB', Output: 'panic: runtime error: index out of range\n' },
    );
    const result = parseGoTestJson(cut);
    expect(brief(result.cases)).toEqual(['passed p::TestA', 'failed p::TestB', 'failed p::[did not finish]']);
    expect(result.cases[1]?.message).toBe('panic: runtime error: index out of range');
    expect(evaluate('go-json', cut, 0, ['p::TestC']).failToPass.failing[0]?.reason).toBe('missing');
  });

  it('a package failing outside its tests (TestMain, os.Exit) is a failed [package failed] case', () => {
    const text = lines(
      { Action: 'run', Package: 'p', Test: 'TestA' },
      { Action: 'pass', Package: 'p', Test: 'TestA' },
      { Action: 'output', Package: 'p', Output: 'exit status 3\n' },
      { Action: 'fail', Package: 'p' },
    );
    expect(brief(parseGoTestJson(text).cases)).toEqual(['passed p::TestA', 'failed p::[package failed]']);
  });

  it.each([
    [
      'a test that ends without starting',
      lines({ Action: 'pass', Package: 'p', Test: 'TestForged' }, { Action: 'pass', Package: 'p' }),
      /ended \(pass\) without having started/,
    ],
    ['a package that ends twice', lines({ Action: 'pass', Package: 'p' }, { Action: 'pass', Package: 'p' }), /after it ended|ended twice/],
    ['a broken JSON line', '{"Action":"run","Package":"p","Test":"TestA"}\n{"Action": pass\n', /line 2: not a JSON event/],
    ['no events at all', 'go: cannot find main module\n', /no go test -json events/],
  ])('unusable: %s', (_name, text, error) => {
    const result = parseGoTestJson(text);
    expect(result.cases).toEqual([]);
    expect(result.error).toMatch(error);
    expect(evaluate('go-json', text, 0, ['p::TestA']).invalidReason).toMatch(/^go test -json stream/);
  });
});

// libtest's JSON (`cargo test -- -Z unstable-options --format json`) in its documented shape.
const cargoRun = lines(
  { type: 'suite', event: 'started', test_count: 3 },
  { type: 'test', event: 'started', name: 'tests::adds' },
  { type: 'test', event: 'started', name: 'parse::tests::empty' },
  { type: 'test', name: 'tests::adds', event: 'ok', exec_time: 0.002 },
  { type: 'test', name: 'parse::tests::empty', event: 'failed', stdout: "thread 'parse::tests::empty' panicked at src/parse.rs:9:5:\nassertion failed\n" },
  { type: 'test', event: 'started', name: 'tests::slow' },
  { type: 'test', name: 'tests::slow', event: 'ignored' },
  { type: 'suite', event: 'failed', passed: 1, failed: 1, ignored: 1, measured: 0, filtered_out: 0, exec_time: 0.01 },
  { type: 'suite', event: 'started', test_count: 1 },
  { type: 'test', event: 'started', name: 'adds_from_outside' },
  { type: 'test', name: 'adds_from_outside', event: 'ok' },
  { type: 'suite', event: 'ok', passed: 1, failed: 0, ignored: 0, measured: 0, filtered_out: 0 },
);

describe('cargo libtest JSON', () => {
  it('ids are the module path (cargo2junit’s form); ignored is skipped', () => {
    const result = parseCargoTestJson(cargoRun);
    expect(result.error).toBeUndefined();
    expect(brief(result.cases)).toEqual(['passed tests::adds', 'failed parse::tests::empty', 'skipped tests::slow', 'passed adds_from_outside']);
    expect(result.cases[1]?.message).toBe("thread 'parse::tests::empty' panicked at src/parse.rs:9:5:");
    expect(result.cases[0]?.durationMs).toBe(2);
  });

  it('nextest’s libtest-json: binary-id$path becomes binary-id::path, nextest’s JUnit id', () => {
    const text = lines(
      { type: 'suite', event: 'started', test_count: 1, nextest: { crate: 'my-crate', test_binary: 'integration', kind: 'test' } },
      { type: 'test', event: 'started', name: 'my-crate::integration$tests::adds' },
      { type: 'test', event: 'ok', name: 'my-crate::integration$tests::adds' },
      { type: 'suite', event: 'ok', passed: 1, failed: 0, ignored: 0 },
    );
    expect(brief(parseCargoTestJson(text).cases)).toEqual(['passed my-crate::integration::tests::adds']);
  });

  it('a test binary that aborts mid-suite: its running tests fail and the suite did not finish', () => {
    const text = lines(
      { type: 'suite', event: 'started', test_count: 2 },
      { type: 'test', event: 'started', name: 'tests::a' },
      { type: 'test', event: 'ok', name: 'tests::a' },
      { type: 'test', event: 'started', name: 'tests::b' },
    );
    expect(brief(parseCargoTestJson(text).cases)).toEqual(['passed tests::a', 'failed tests::b', 'failed [suite 1 did not finish]']);
    expect(evaluate('cargo-json', text, 0, ['tests::b']).consistent).toBe(false);
  });

  it.each([
    [
      'suite counts that disagree with the tests seen',
      lines(
        { type: 'suite', event: 'started', test_count: 1 },
        { type: 'test', event: 'started', name: 'a' },
        { type: 'test', event: 'failed', name: 'a' },
        { type: 'suite', event: 'ok', passed: 1, failed: 0, ignored: 0 },
      ),
      /reports 1 passed but 0/,
    ],
    [
      'a test_count that disagrees',
      lines(
        { type: 'suite', event: 'started', test_count: 5 },
        { type: 'test', event: 'started', name: 'a' },
        { type: 'test', event: 'ok', name: 'a' },
        { type: 'suite', event: 'ok', passed: 1, failed: 0, ignored: 0 },
      ),
      /announced 5/,
    ],
    [
      'a test that ends twice',
      lines(
        { type: 'suite', event: 'started' },
        { type: 'test', event: 'started', name: 'a' },
        { type: 'test', event: 'failed', name: 'a' },
        { type: 'test', event: 'ok', name: 'a' },
      ),
      /ended twice/,
    ],
    ['a test outside a suite', lines({ type: 'test', event: 'ok', name: 'a' }), /outside a suite/],
    ['no suite at all', 'error: could not compile `calc`\n', /no libtest JSON suite/],
  ])('unusable: %s', (_name, text, error) => {
    const result = parseCargoTestJson(text);
    expect(result.cases).toEqual([]);
    expect(result.error).toMatch(error);
    expect(evaluate('cargo-json', text, 0, ['a']).invalidReason).toMatch(/^libtest JSON stream/);
  });
});
