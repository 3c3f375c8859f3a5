import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseJUnit } from '../../src/domain/evidence/junit.js';
import { describeFailing } from '../../src/domain/checks/describe.js';
import { classifyAsMissing, classifyTests, duplicateIds, listTestIds, MAX_NEAR_LOOKUPS } from '../../src/domain/evidence/test-outcome-groups.js';
import type { TestCaseResult } from '../../src/core/types/index.js';

const passed = (id: string): TestCaseResult => ({ id, status: 'passed' });
const failed = (id: string): TestCaseResult => ({ id, status: 'failed', message: 'boom' });
const skipped = (id: string): TestCaseResult => ({ id, status: 'skipped' });

describe('classifyTests with explicit lists', () => {
  it('passes ids that appear exactly once and passed', () => {
    const result = classifyTests([passed('a'), passed('b'), passed('c')], {
      failToPass: ['a'],
      passToPass: ['b', 'c'],
    });
    expect(result).toEqual({
      failToPass: { total: 1, passed: 1, failing: [] },
      passToPass: { total: 2, passed: 2, failing: [] },
    });
  });

  it('gives each failing id its reason: missing, failed, duplicated, skipped', () => {
    const cases = [failed('f'), skipped('s'), passed('d'), passed('d'), passed('ok')];
    const result = classifyTests(cases, { failToPass: ['ok', 'm', 'f', 'd', 's'], passToPass: [] });
    expect(result.failToPass).toEqual({
      total: 5,
      passed: 1,
      failing: [
        { id: 'm', reason: 'missing' },
        { id: 'f', reason: 'failed' },
        { id: 'd', reason: 'duplicated' },
        { id: 's', reason: 'skipped' },
      ],
    });
  });

  it('applies the same rules to an explicit pass-to-pass list, skipped included', () => {
    const cases = [passed('a'), skipped('b'), failed('c'), passed('d'), skipped('d')];
    const result = classifyTests(cases, { failToPass: [], passToPass: ['a', 'b', 'c', 'd', 'gone'] });
    expect(result.passToPass).toEqual({
      total: 5,
      passed: 1,
      failing: [
        { id: 'b', reason: 'skipped' },
        { id: 'c', reason: 'failed' },
        { id: 'd', reason: 'duplicated' },
        { id: 'gone', reason: 'missing' },
      ],
    });
  });

  it('reports a duplicated id with a failing copy as failed', () => {
    const result = classifyTests([passed('x'), failed('x')], { failToPass: ['x'], passToPass: [] });
    expect(result.failToPass.failing).toEqual([{ id: 'x', reason: 'failed' }]);
  });

  it('matches ids exactly: no case, prefix or whitespace leniency', () => {
    const cases = [passed('tests.test_a::test_x'), passed('math > deep')];
    const result = classifyTests(cases, {
      failToPass: ['tests.test_a::test_X', 'tests.test_a::test', 'math >  deep', ' math > deep'],
      passToPass: [],
    });
    expect(result.failToPass.passed).toBe(0);
    expect(result.failToPass.failing.map((f) => f.reason)).toEqual(['missing', 'missing', 'missing', 'missing']);
  });

  it('counts an id listed twice in the spec once', () => {
    const result = classifyTests([passed('a')], { failToPass: ['a', 'a'], passToPass: [] });
    expect(result.failToPass).toEqual({ total: 1, passed: 1, failing: [] });
  });

  it('fails every listed id when nothing was parsed', () => {
    const result = classifyTests([], { failToPass: ['a'], passToPass: ['b'] });
    expect(result.failToPass.failing).toEqual([{ id: 'a', reason: 'missing' }]);
    expect(result.passToPass.failing).toEqual([{ id: 'b', reason: 'missing' }]);
  });
});

describe('classifyTests with all_others', () => {
  it('covers every parsed id outside fail-to-pass, in report order', () => {
    const cases = [passed('f2p'), passed('a'), failed('b'), passed('c')];
    const result = classifyTests(cases, { failToPass: ['f2p'], passToPass: 'all_others' });
    expect(result.passToPass).toEqual({ total: 3, passed: 2, failing: [{ id: 'b', reason: 'failed' }] });
  });

  it('leaves out ids that were only skipped, and does not count them', () => {
    const cases = [passed('a'), skipped('s'), skipped('s2'), skipped('s2')];
    const result = classifyTests(cases, { failToPass: [], passToPass: 'all_others' });
    expect(result.passToPass).toEqual({ total: 1, passed: 1, failing: [] });
  });

  it('passes repeated ids unless one of their cases failed', () => {
    const cases = [passed('adds'), passed('adds'), passed('x'), skipped('x'), passed('y'), failed('y')];
    const result = classifyTests(cases, { failToPass: [], passToPass: 'all_others' });
    expect(result.passToPass).toEqual({ total: 3, passed: 2, failing: [{ id: 'y', reason: 'failed' }] });
  });

  it('does not let a failing fail-to-pass test count again as a regression', () => {
    const result = classifyTests([failed('f2p'), passed('other')], { failToPass: ['f2p'], passToPass: 'all_others' });
    expect(result.failToPass.failing).toEqual([{ id: 'f2p', reason: 'failed' }]);
    expect(result.passToPass).toEqual({ total: 1, passed: 1, failing: [] });
  });

  it('classifies a real report: vitest fixture, two F2P ids', () => {
    const xml = readFileSync(new URL('../fixtures/junit/vitest/report.xml', import.meta.url), 'utf8');
    const result = classifyTests(parseJUnit(xml).cases, {
      failToPass: ['src/calc.test.ts::math > inner > deep', 'src/calc.test.ts::math > skipped one'],
      passToPass: 'all_others',
    });
    expect(result.failToPass).toEqual({
      total: 2,
      passed: 1,
      failing: [{ id: 'src/calc.test.ts::math > skipped one', reason: 'skipped' }],
    });
    expect(result.passToPass).toEqual({
      total: 9,
      passed: 5,
      failing: [
        { id: 'src/calc.test.ts::top-level fails', reason: 'failed' },
        { id: 'src/calc.test.ts::math > inner > deep fails', reason: 'failed' },
        { id: 'src/calc.test.ts::math > add(2, 3) = 6', reason: 'failed' },
        { id: 'src/nested/broken.test.ts', reason: 'failed' },
      ],
    });
  });

  it("flags node's same-named top-level tests from two files as duplicated when listed", () => {
    const xml = readFileSync(new URL('../fixtures/junit/node/nested-two-files.xml', import.meta.url), 'utf8');
    const result = classifyTests(parseJUnit(xml).cases, { failToPass: ['adds'], passToPass: [] });
    expect(result.failToPass.failing).toEqual([{ id: 'adds', reason: 'duplicated' }]);
  });
});

describe('classifyAsMissing', () => {
  it('fails every listed id as missing', () => {
    expect(classifyAsMissing({ failToPass: ['a', 'a'], passToPass: ['b'] })).toEqual({
      failToPass: { total: 1, passed: 0, failing: [{ id: 'a', reason: 'missing' }] },
      passToPass: { total: 1, passed: 0, failing: [{ id: 'b', reason: 'missing' }] },
    });
  });

  it('fills all_others from the known ids outside fail-to-pass', () => {
    const result = classifyAsMissing({ failToPass: ['a'], passToPass: 'all_others' }, ['a', 'b', 'b', 'c']);
    expect(result.passToPass).toEqual({
      total: 2,
      passed: 0,
      failing: [
        { id: 'b', reason: 'missing' },
        { id: 'c', reason: 'missing' },
      ],
    });
  });
});

describe('listTestIds', () => {
  it('lists distinct ids in report order', () => {
    expect(listTestIds([passed('b'), failed('a'), skipped('b'), passed('c')])).toEqual(['b', 'a', 'c']);
  });
});

describe('missing ids and the ids the run did report', () => {
  const reported = [passed('math > adds'), passed('math > subtracts'), passed('strings > pads')];

  it('names the nearest reported ids of a misspelt id, and messages say "did you mean"', () => {
    const result = classifyTests(reported, { failToPass: ['math > add'], passToPass: ['math > subtract', 'nothing like it at all'] });
    expect(result.failToPass.failing).toEqual([{ id: 'math > add', reason: 'missing', near: ['math > adds'] }]);
    expect(result.passToPass.failing).toEqual([
      { id: 'math > subtract', reason: 'missing', near: ['math > subtracts'] },
      { id: 'nothing like it at all', reason: 'missing' },
    ]);
    expect(describeFailing(result.passToPass.failing)).toBe('math > subtract (missing; did you mean "math > subtracts"?), nothing like it at all (missing)');
  });

  it('looks up only the first few missing ids of a group, whatever the task set lists', () => {
    const wanted = Array.from({ length: MAX_NEAR_LOOKUPS + 5 }, (_, i) => `math > adds ${i}`);
    const failing = classifyTests(reported, { failToPass: wanted, passToPass: [] }).failToPass.failing;
    expect(failing).toHaveLength(wanted.length);
    expect(failing.filter((f) => f.near !== undefined)).toHaveLength(MAX_NEAR_LOOKUPS);
    expect(failing[0]?.near).toEqual(['math > adds']);
  });
});

describe('duplicateIds', () => {
  it('counts the cases that share an id and names the most repeated first', () => {
    expect(duplicateIds([passed('a'), passed('b'), failed('b'), passed('c'), passed('c'), skipped('c')])).toEqual({
      ids: 2,
      cases: 5,
      examples: [
        { id: 'c', cases: 3 },
        { id: 'b', cases: 2 },
      ],
    });
    expect(duplicateIds([passed('a'), passed('b')])).toBeUndefined();
  });
});
