import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { summaryFailures } from '../../src/domain/evidence/runner-summary.js';
import { OUTPUT_TAIL_CHARS, buildTestEvidence, type TestRunInput } from '../../src/domain/evidence/test-outcome.js';

const PASSING_REPORT = '<testsuites><testcase classname="t" name="fixed"/><testcase classname="t" name="kept"/></testsuites>';
const FAILING_REPORT = '<testsuites><testcase classname="t" name="fixed"><failure message="no"/></testcase><testcase classname="t" name="kept"/></testsuites>';

function run(overrides: Partial<TestRunInput>): TestRunInput {
  return {
    command: 'npm test',
    exitCode: 0,
    timedOut: false,
    durationMs: 1234,
    output: 'ok\n',
    junitXml: PASSING_REPORT,
    spec: { failToPass: ['t::fixed'], passToPass: ['t::kept'] },
    ...overrides,
  };
}

function fixture(path: string): string {
  return readFileSync(new URL(`../fixtures/junit/${path}`, import.meta.url), 'utf8');
}

describe('buildTestEvidence', () => {
  it('records a clean, consistent, passing run', () => {
    expect(buildTestEvidence(run({}))).toEqual({
      command: 'npm test',
      exitCode: 0,
      timedOut: false,
      durationMs: 1234,
      parsed: 2,
      consistent: true,
      failToPass: { total: 1, passed: 1, failing: [] },
      passToPass: { total: 1, passed: 1, failing: [] },
      outputTail: 'ok\n',
    });
  });

  it('records a failing run whose exit code agrees', () => {
    const evidence = buildTestEvidence(run({ exitCode: 1, junitXml: FAILING_REPORT }));
    expect(evidence.consistent).toBe(true);
    expect(evidence.invalidReason).toBeUndefined();
    expect(evidence.failToPass.failing).toEqual([{ id: 't::fixed', reason: 'failed' }]);
  });

  describe('cross-check with the exit code', () => {
    it('is inconsistent when the command failed but no parsed test did', () => {
      const evidence = buildTestEvidence(run({ exitCode: 1 }));
      expect(evidence.consistent).toBe(false);
      // Still classified, so the report can say what ran; the caller must not call it a pass.
      expect(evidence.failToPass.passed).toBe(1);
    });

    it('is inconsistent when the command succeeded but a parsed test failed', () => {
      expect(buildTestEvidence(run({ exitCode: 0, junitXml: FAILING_REPORT })).consistent).toBe(false);
    });

    it('catches node dropping a parent test failure from its report', () => {
      const evidence = buildTestEvidence(
        run({
          exitCode: 1,
          junitXml: fixture('node/dropped-parent-failure.xml'),
          spec: { failToPass: ['parent > child passes'], passToPass: 'all_others' },
        }),
      );
      expect(evidence.failToPass).toEqual({ total: 1, passed: 1, failing: [] });
      expect(evidence.consistent).toBe(false);
    });

    it('catches jest-junit leaving out a file that failed to load', () => {
      const evidence = buildTestEvidence(run({ exitCode: 1, junitXml: fixture('jest/default-options.xml'), spec: { failToPass: [], passToPass: [] } }));
      // That report has failures of its own, so this run is consistent; without them it would not be.
      expect(evidence.consistent).toBe(true);
      const withoutFailures = fixture('jest/default-options.xml').replace(/<failure>[\s\S]*?<\/failure>/g, '');
      expect(buildTestEvidence(run({ exitCode: 1, junitXml: withoutFailures })).consistent).toBe(false);
    });
  });

  describe('invalid runs', () => {
    it('fails every listed id as missing when the report has no test cases', () => {
      const evidence = buildTestEvidence(run({ junitXml: '<testsuites/>' }));
      expect(evidence.parsed).toBe(0);
      expect(evidence.invalidReason).toBe('JUnit report contains no test cases');
      expect(evidence.failToPass).toEqual({ total: 1, passed: 0, failing: [{ id: 't::fixed', reason: 'missing' }] });
      expect(evidence.passToPass).toEqual({ total: 1, passed: 0, failing: [{ id: 't::kept', reason: 'missing' }] });
    });

    it('is invalid when no report was written', () => {
      const evidence = buildTestEvidence(run({ junitXml: undefined, exitCode: 1 }));
      expect(evidence.invalidReason).toBe('test command wrote no JUnit report');
      expect(evidence.consistent).toBe(false);
      expect(evidence.failToPass.failing).toEqual([{ id: 't::fixed', reason: 'missing' }]);
    });

    it('says why a report that was there could not be read (e.g. too large)', () => {
      const evidence = buildTestEvidence(run({ junitXml: undefined, exitCode: 0, reportProblem: 'JUnit report too large (99 bytes; limit 10)' }));
      expect(evidence.invalidReason).toBe('JUnit report too large (99 bytes; limit 10)');
      expect(evidence.failToPass.failing).toEqual([{ id: 't::fixed', reason: 'missing' }]);
    });

    it('is invalid when the report cannot be read, and says why on one line', () => {
      const evidence = buildTestEvidence(run({ junitXml: '<testsuites><testcase name="x">' }));
      expect(evidence.invalidReason).toMatch(/^JUnit report unreadable: not well-formed XML/);
      expect(evidence.invalidReason).not.toMatch(/\n/);
      expect(evidence.parsed).toBe(0);
    });

    it('is invalid on timeout even when a complete report says everything passed', () => {
      const evidence = buildTestEvidence(run({ timedOut: true, exitCode: null, durationMs: 60_000 }));
      expect(evidence.invalidReason).toBe('test command timed out after 60000 ms');
      expect(evidence.parsed).toBe(2);
      expect(evidence.consistent).toBe(false);
      expect(evidence.failToPass.passed).toBe(0);
      expect(evidence.passToPass.failing).toEqual([{ id: 't::kept', reason: 'missing' }]);
    });

    it('is invalid when the command was killed without an exit code', () => {
      const evidence = buildTestEvidence(run({ exitCode: null }));
      expect(evidence.invalidReason).toMatch(/without an exit code/);
      expect(evidence.consistent).toBe(false);
    });

    it('with all_others, reports the parsed ids outside fail-to-pass as missing', () => {
      const evidence = buildTestEvidence(run({ timedOut: true, spec: { failToPass: ['t::fixed'], passToPass: 'all_others' } }));
      expect(evidence.passToPass).toEqual({ total: 1, passed: 0, failing: [{ id: 't::kept', reason: 'missing' }] });
    });
  });

  describe('output tail', () => {
    it('keeps the head, the tail and the failure lines of long output, within its budget, marked as cut', () => {
      const output = [
        'TAP version 13',
        ...Array.from({ length: 2000 }, (_, i) => (i === 900 ? 'not ok 901 - rounds half to even' : `ok ${i + 1} - case`)),
        '# fail 1',
        'the end',
      ].join('\n');
      const { outputTail } = buildTestEvidence(run({ output }));
      expect(outputTail.length).toBeLessThanOrEqual(OUTPUT_TAIL_CHARS);
      expect(outputTail.startsWith('TAP version 13')).toBe(true);
      expect(outputTail).toContain('ok 900 - case\nnot ok 901 - rounds half to even\nok 902 - case');
      expect(outputTail).toContain('# fail 1\nthe end\n');
      expect(outputTail.split('\n').at(-1)).toMatch(/^\[… [\d,]+ of 2,003 lines cut, 1 failure line kept …\]$/);
    });

    it('never splits a surrogate pair', () => {
      const output = '😀'.repeat(OUTPUT_TAIL_CHARS);
      const { outputTail } = buildTestEvidence(run({ output }));
      expect(outputTail.length).toBeLessThanOrEqual(OUTPUT_TAIL_CHARS);
      expect(outputTail).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
      expect(outputTail.startsWith('😀')).toBe(true);
    });
  });
});

describe("the runner's own summary against the report", () => {
  it('reads failure counts from pytest, node:test, jest and vitest summaries, and nothing from other lines', () => {
    expect(summaryFailures('...\n=========== 1 failed, 4 passed, 2 errors in 0.12s ===========\n')).toBe(3);
    expect(summaryFailures('1 failed, 4 passed in 0.05s\n')).toBe(1);
    expect(summaryFailures('5 passed, 1 xfailed in 0.05s\n')).toBe(0);
    expect(summaryFailures('ℹ tests 4\nℹ pass 3\nℹ fail 1\n')).toBe(1);
    expect(summaryFailures('# fail 2\n')).toBe(2);
    expect(summaryFailures('Tests:       1 failed, 3 passed, 4 total\n')).toBe(1);
    expect(summaryFailures('\x1b[2m      Tests \x1b[22m 2 failed | 3 passed (5)\n')).toBe(2);
    expect(summaryFailures('the test said: 3 failed attempts\nok\n')).toBeUndefined();
  });

  it('makes a run whose summary counts failures but whose report shows none unusable', () => {
    const rewritten = buildTestEvidence(run({ output: '.F\n1 failed, 1 passed in 0.02s\n' }));
    expect(rewritten.invalidReason).toMatch(/summary reports 1 failure\(s\) but the JUnit report has none/);
    expect(rewritten.failToPass.failing).toEqual([{ id: 't::fixed', reason: 'missing' }]);
    // An honest failing run, and a passing run without any summary, are as before.
    expect(buildTestEvidence(run({ exitCode: 1, junitXml: FAILING_REPORT, output: '1 failed, 1 passed in 0.02s\n' })).invalidReason).toBeUndefined();
    expect(buildTestEvidence(run({ output: '2 passed in 0.01s\n' })).invalidReason).toBeUndefined();
  });
});
