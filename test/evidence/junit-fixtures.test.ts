import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseJUnit } from '../../src/domain/evidence/junit.js';
import type { TestCaseResult } from '../../src/core/types/index.js';

function parseFixture(path: string): TestCaseResult[] {
  const xml = readFileSync(new URL(`../fixtures/junit/${path}`, import.meta.url), 'utf8');
  const result = parseJUnit(xml);
  expect(result.error).toBeUndefined();
  return result.cases;
}

/** `status id` lines, sorted: regenerating a fixture may reorder files, never change these. */
function statusLines(cases: TestCaseResult[]): string[] {
  return cases.map((c) => `${c.status} ${c.id}`).sort();
}

function messageOf(cases: TestCaseResult[], id: string): string | undefined {
  const matches = cases.filter((c) => c.id === id);
  expect(matches).toHaveLength(1);
  return matches[0]?.message;
}

describe('pytest --junitxml', () => {
  it('names every case classname::name, classes dotted onto the module', () => {
    const cases = parseFixture('pytest/report.xml');
    expect(statusLines(cases)).toEqual(
      [
        'passed tests.sub.test_more::test_nested_module',
        'passed tests.test_calc::test_add',
        'failed tests.test_calc::test_add_wrong',
        'failed tests.test_calc::test_uses_broken_fixture',
        'skipped tests.test_calc::test_skipped',
        'passed tests.test_calc::test_add_param[1-1-2]',
        'failed tests.test_calc::test_add_param[2-3-6]',
        'passed tests.test_calc::test_add_param[x-y-xy]',
        'passed tests.test_calc.TestCalc::test_in_class',
        'failed tests.test_calc.TestCalc::test_raises',
        'skipped tests.test_calc.TestCalc::test_xfail',
        'failed tests.test_teardown::test_passes_then_teardown_fails',
        // pytest writes a test that failed and then errored in teardown twice.
        'failed tests.test_teardown::test_fails_then_teardown_fails',
        'failed tests.test_teardown::test_fails_then_teardown_fails',
      ].sort(),
    );
  });

  it('keeps the first line of the message, entities decoded', () => {
    const cases = parseFixture('pytest/report.xml');
    expect(messageOf(cases, 'tests.test_calc::test_add_wrong')).toBe('AssertionError: two plus two <is> not five & never was');
    expect(messageOf(cases, 'tests.test_calc.TestCalc::test_raises')).toBe('ValueError: bad value');
    expect(messageOf(cases, 'tests.test_calc::test_uses_broken_fixture')).toBe('failed on setup with "RuntimeError: fixture exploded"');
    expect(messageOf(cases, 'tests.test_calc::test_skipped')).toBe('not ready');
    expect(messageOf(cases, 'tests.test_calc::test_add')).toBeUndefined();
  });

  it('reports a collection error under the module name, without the generic "pytest" suite', () => {
    const collection = parseFixture('pytest/collection-error.xml');
    expect(collection.map((c) => [c.id, c.status, c.message])).toEqual([['tests.test_broken_import', 'failed', 'collection failure']]);
  });
});

describe('node --test --test-reporter=junit', () => {
  it('joins describe blocks with " > " and keeps top-level names bare', () => {
    const cases = parseFixture('node/nested-two-files.xml');
    expect(statusLines(cases)).toEqual(
      [
        // Both files define a top-level `adds`; node's report does not say which file a case is in.
        'passed adds',
        'passed adds',
        'failed top-level fails',
        'passed math > multiplies',
        'skipped math > skipped one',
        'skipped math > todo one',
        'passed math > inner > deep',
        'failed math > inner > deep fails',
        'passed strings > concatenates',
        'failed strings > upper-cases',
      ].sort(),
    );
    expect(messageOf(cases, 'top-level fails')).toBe('one plus one <is> not three & never was2 !== 3');
    expect(messageOf(cases, 'math > skipped one')).toBe('not ready');
  });

  it('reads failures from hooks, subtests, throwing describe bodies and crashed files', () => {
    const cases = parseFixture('node/crashes-and-hooks.xml');
    expect(statusLines(cases)).toEqual(
      [
        'passed parent > child passes',
        'failed parent > child fails',
        'failed with failing hook > never runs',
        'failed throws in body > ok',
        'passed ok before crash',
        'failed /home/user/project/edge/late.test.mjs',
        'failed /home/user/project/edge/exit.test.mjs',
      ].sort(),
    );
    expect(messageOf(cases, 'with failing hook > never runs')).toBe('test did not finish before its parent and was cancelled');
  });

  it('shows only the passing child when node drops the parent test failure', () => {
    const cases = parseFixture('node/dropped-parent-failure.xml');
    expect(statusLines(cases)).toEqual(['passed parent > child passes']);
  });

  it('takes durations from seconds to milliseconds', () => {
    const cases = parseFixture('node/dropped-parent-failure.xml');
    expect(cases[0]?.durationMs).toBeGreaterThan(0);
    expect(cases[0]?.durationMs).toBeLessThan(1000);
  });
});

describe('vitest --reporter=junit', () => {
  it('names cases file::describe > name, and a file that failed to load by its path', () => {
    const cases = parseFixture('vitest/report.xml');
    expect(statusLines(cases)).toEqual(
      [
        'passed src/calc.test.ts::adds',
        'failed src/calc.test.ts::top-level fails',
        'passed src/calc.test.ts::math > multiplies',
        'skipped src/calc.test.ts::math > skipped one',
        'skipped src/calc.test.ts::math > todo one',
        'passed src/calc.test.ts::math > inner > deep',
        'failed src/calc.test.ts::math > inner > deep fails',
        'passed src/calc.test.ts::math > add(1, 1) = 2',
        'failed src/calc.test.ts::math > add(2, 3) = 6',
        'failed src/nested/broken.test.ts',
        'passed src/nested/strings.test.ts::strings > concatenates',
        'passed src/nested/strings.test.ts::adds',
      ].sort(),
    );
  });

  it('cuts a multi-line message attribute to its first line', () => {
    const cases = parseFixture('vitest/report.xml');
    expect(messageOf(cases, 'src/calc.test.ts::math > inner > deep fails')).toBe('boom');
    expect(messageOf(cases, 'src/calc.test.ts::top-level fails')).toBe('one plus one <is> not three & never was: expected 2 to be 3 // Object.is equality');
  });
});

describe('jest-junit', () => {
  it('with default options uses the repeated classname/name once, trimmed', () => {
    const cases = parseFixture('jest/default-options.xml');
    expect(statusLines(cases)).toEqual(
      [
        'passed adds',
        'passed adds',
        'failed top-level fails',
        'passed math multiplies',
        'skipped math skipped one',
        // jest-junit writes it.todo as a plain testcase: indistinguishable from a pass.
        'passed math todo one',
        'passed math inner deep',
        'failed math inner deep fails <with> & entities',
        'passed math add(1, 1) = 2',
        'failed math add(2, 3) = 6',
        'passed strings concatenates',
      ].sort(),
    );
    // No message attribute: the body's first line stands in.
    expect(messageOf(cases, 'math inner deep fails <with> & entities')).toBe('Error: boom');
  });

  it('with the recommended options reads like vitest and reports unloadable files', () => {
    const cases = parseFixture('jest/recommended-options.xml');
    expect(statusLines(cases)).toEqual(
      [
        'passed __tests__/calc.test.js::adds',
        'failed __tests__/calc.test.js::top-level fails',
        'passed __tests__/calc.test.js::math > multiplies',
        'skipped __tests__/calc.test.js::math > skipped one',
        'passed __tests__/calc.test.js::math > todo one',
        'passed __tests__/calc.test.js::math > inner > deep',
        'failed __tests__/calc.test.js::math > inner > deep fails <with> & entities',
        'passed __tests__/calc.test.js::math > add(1, 1) = 2',
        'failed __tests__/calc.test.js::math > add(2, 3) = 6',
        'passed __tests__/nested/strings.test.js::strings > concatenates',
        'passed __tests__/nested/strings.test.js::adds',
        // An <error> and a <failure> case for the same file.
        'failed Test suite failed to run::__tests__/nested/broken.test.js',
        'failed Test suite failed to run::__tests__/nested/broken.test.js',
      ].sort(),
    );
  });
});

describe('go-junit-report v2', () => {
  it('names cases package::Test/subtest, build failures and panics included', () => {
    const cases = parseFixture('go/report.xml');
    expect(statusLines(cases)).toEqual(
      [
        'passed example.com/calc::TestAdd',
        'failed example.com/calc::TestDivide',
        'skipped example.com/calc::TestSkipped',
        'failed example.com/calc::TestTable',
        'passed example.com/calc::TestTable/positive',
        'failed example.com/calc::TestTable/negative_numbers',
        'passed example.com/calc::TestTable/with_space',
        'failed example.com/calc/parse::[build failed]',
        'passed example.com/server::TestServe',
        'passed example.com/server::TestShutdown',
        'failed example.com/server::Failure',
      ].sort(),
    );
  });

  it('keeps document order and reads messages from attributes', () => {
    const cases = parseFixture('go/report.xml');
    expect(cases.map((c) => c.id).slice(0, 3)).toEqual(['example.com/calc::TestAdd', 'example.com/calc::TestDivide', 'example.com/calc::TestSkipped']);
    expect(messageOf(cases, 'example.com/calc::TestSkipped')).toBe('calc_test.go:27: needs a database');
    expect(messageOf(cases, 'example.com/calc/parse::[build failed]')).toBe('Build error');
    expect(messageOf(cases, 'example.com/server::TestServe')).toBeUndefined();
  });
});
