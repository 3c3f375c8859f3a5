import { describe, expect, it } from 'vitest';
import { cutOutput, cutOutputDetail, failureExcerpt, failureLine, isFailureLine } from '../../src/core/format/index.js';

const range = (n: number, line: (i: number) => string): string[] => Array.from({ length: n }, (_, i) => line(i));

/** A long TAP stream: 600 passing tests with three failures in the middle, then the plan and summary. */
function tapStream(): string {
  const lines = ['TAP version 13'];
  for (let i = 1; i <= 600; i++) {
    if (i === 200 || i === 301 || i === 450) {
      lines.push(`not ok ${i} - case ${i} rounds half to even`, '  ---', `  message: 'expected ${i} to equal ${i + 1}'`, '  ...');
    } else {
      lines.push(`ok ${i} - case ${i}`);
    }
  }
  lines.push('1..600', '# tests 600', '# pass 597', '# fail 3');
  return lines.join('\n');
}

describe('cutOutput', () => {
  it('leaves output that fits untouched', () => {
    const text = 'ok 1 - a\nnot ok 2 - b\n';
    expect(cutOutput(text, { maxChars: 1000 })).toBe(text);
    expect(cutOutputDetail(text, { maxChars: 1000 }).cut).toBe(false);
  });

  it('keeps TAP `not ok` lines from the middle of a long stream, with a line of context', () => {
    const text = tapStream();
    const result = cutOutputDetail(text, { maxChars: 2000 });
    expect(result.cut).toBe(true);
    for (const n of [200, 301, 450]) {
      expect(result.text).toContain(`not ok ${n} - case ${n} rounds half to even`);
      // The line after it (the YAML block's start) and the one before.
      expect(result.text).toContain(`ok ${n - 1} - case ${n - 1}\nnot ok ${n} - case ${n} rounds half to even\n  ---`);
    }
    expect(result.text.startsWith('TAP version 13\nok 1 - case 1')).toBe(true);
    expect(result.text).toContain('# fail 3');
    expect(result.failureLines).toBe(3);
    expect(result.failureLinesCut).toBe(0);
  });

  it('stays within its character and line budgets', () => {
    const text = tapStream();
    for (const maxChars of [300, 800, 2000, 5000]) {
      expect(cutOutput(text, { maxChars }).length).toBeLessThanOrEqual(maxChars);
    }
    const result = cutOutputDetail(text, { maxChars: 100_000, maxLines: 40 });
    expect(result.lines - result.linesCut).toBeLessThanOrEqual(40);
    const kept = result.text.split('\n').filter((l) => !l.startsWith('[…'));
    expect(kept.length).toBe(result.lines - result.linesCut);
  });

  it('says truthfully how many lines each gap and the whole cut dropped', () => {
    const text = tapStream();
    const result = cutOutputDetail(text, { maxChars: 1500, hint: 'narrow the command' });
    const lines = result.text.split('\n');
    const gaps = lines.flatMap((l) => {
      const m = /^\[… ([\d,]+) lines? cut …\]$/.exec(l);
      return m ? [Number((m[1] as string).replace(/,/g, ''))] : [];
    });
    const kept = lines.filter((l) => !l.startsWith('[…')).length;
    const total = text.split('\n').length;
    expect(gaps.reduce((a, b) => a + b, 0)).toBe(total - kept);
    expect(result.linesCut).toBe(total - kept);
    const summary = lines.at(-1) as string;
    expect(summary).toBe(`[… ${(total - kept).toLocaleString('en-US')} of ${total} lines cut, 3 failure lines kept; narrow the command …]`);
  });

  it('counts failure lines that did not fit instead of hiding them', () => {
    const text = range(2000, (i) => (i % 10 === 5 ? `not ok ${i} - a failure with a long description ${'x'.repeat(40)}` : `ok ${i}`)).join('\n');
    const result = cutOutputDetail(text, { maxChars: 3000 });
    expect(result.failureLines).toBe(200);
    expect(result.failureLinesCut).toBeGreaterThan(0);
    const keptFailures = result.text.split('\n').filter((l) => l.startsWith('not ok')).length;
    expect(keptFailures).toBe(200 - result.failureLinesCut);
    expect(result.text.split('\n').at(-1)).toContain(`${keptFailures} failure lines kept, ${result.failureLinesCut} failure lines cut`);
    expect(result.text.length).toBeLessThanOrEqual(3000);
  });

  it('keeps pytest failures reported before a long tail of passing output', () => {
    const text = [
      '============================= test session starts ==============================',
      'collected 400 items',
      '',
      'tests/test_money.py F' + '.'.repeat(60),
      '=================================== FAILURES ===================================',
      '_______________________________ test_round_half ________________________________',
      '    def test_round_half():',
      '>       assert round_half(2.5) == 2',
      'E       assert 3 == 2',
      'E        +  where 3 = round_half(2.5)',
      '',
      'tests/test_money.py:12: AssertionError',
      ...range(500, (i) => `DEBUG logging line ${i} from a noisy fixture`),
      '=========================== short test summary info ============================',
      'FAILED tests/test_money.py::test_round_half - assert 3 == 2',
      '========================= 1 failed, 399 passed in 1.20s =========================',
    ].join('\n');
    const cut = cutOutput(text, { maxChars: 2500 });
    expect(cut).toContain('E       assert 3 == 2');
    expect(cut).toContain('tests/test_money.py:12: AssertionError');
    expect(cut).toContain('FAILED tests/test_money.py::test_round_half - assert 3 == 2');
  });

  it('keeps jest failures printed before a long summary of passing suites', () => {
    const text = [
      'FAIL src/parse.test.js',
      '  ● parse › reads quoted fields',
      '',
      '    expect(received).toEqual(expected) // deep equality',
      ...range(300, (i) => `PASS src/module${i}.test.js`),
      'Tests:       1 failed, 899 passed, 900 total',
    ].join('\n');
    const cut = cutOutput(text, { maxChars: 1500 });
    expect(cut).toContain('FAIL src/parse.test.js');
    expect(cut).toContain('● parse › reads quoted fields');
    expect(cut).toContain('Tests:       1 failed, 899 passed, 900 total');
  });

  it('keeps go test failures and panics in the middle', () => {
    const text = [
      ...range(200, (i) => `=== RUN   TestCase${i}\n--- PASS: TestCase${i} (0.00s)`),
      '=== RUN   TestSlug',
      '    slug_test.go:14: got "a--b", want "a-b"',
      '--- FAIL: TestSlug (0.00s)',
      ...range(200, (i) => `=== RUN   TestMore${i}\n--- PASS: TestMore${i} (0.00s)`),
      'panic: runtime error: index out of range [3] with length 3',
      ...range(100, (i) => `goroutine trace line ${i}`),
      'FAIL\texample.com/slug\t0.012s',
    ].join('\n');
    const cut = cutOutput(text, { maxChars: 2000 });
    expect(cut).toContain('    slug_test.go:14: got "a--b", want "a-b"\n--- FAIL: TestSlug (0.00s)');
    expect(cut).toContain('panic: runtime error: index out of range [3] with length 3');
    expect(cut).toContain('FAIL\texample.com/slug\t0.012s');
  });

  it('shortens a single huge line from both ends instead of dropping it', () => {
    const text = `start ${'a'.repeat(50_000)} end`;
    const cut = cutOutput(text, { maxChars: 1000 });
    expect(cut.length).toBeLessThanOrEqual(1000);
    expect(cut).toMatch(/^start a+ \[… [\d,]+ characters cut …\] a+ end\n/);
    expect(cut).toContain('long lines shortened');
  });
});

describe('isFailureLine', () => {
  it('knows the markers of the common runners and passes ordinary lines', () => {
    for (const line of [
      'not ok 3 - parses',
      'FAILED tests/a.py::t - x',
      'AssertionError [ERR_ASSERTION]: 1 == 2',
      '✖ slugify drops dashes (1.2ms)',
      '--- FAIL: TestX (0.00s)',
      'FAIL src/a.test.ts',
      'TypeError: x is not a function',
      "thread 'main' panicked at src/main.rs:2:5",
      'E       assert 1 == 2',
      'npm error code ETARGET',
      'npm ERR! code E404',
      'fatal: not a git repository',
      'Traceback (most recent call last):',
      'src/a.ts(3,1): error TS2304: Cannot find name',
      'error[E0308]: mismatched types',
    ]) {
      expect(isFailureLine(line), line).toBe(true);
    }
    for (const line of ['ok 1 - parses', '✔ slugify (1ms)', 'PASS src/a.test.ts', 'collected 12 items', '--- PASS: TestX (0.00s)']) {
      expect(isFailureLine(line), line).toBe(false);
    }
  });
});

describe('failureExcerpt and failureLine', () => {
  const npmLog = [
    ...range(120, (i) => `npm http fetch GET 200 https://registry.example/pkg${i} 12ms (cache hit)`),
    'npm error code ETARGET',
    'npm error notarget No matching version found for crucible-no-such-package-zz@99.0.0.',
    'npm error notarget In most cases you or one of your dependencies are requesting',
    "npm error notarget a package version that doesn't exist.",
    ...range(80, (i) => `npm verbose cleanup line ${i}`),
    'npm error A complete log of this run can be found in: /home/u/.npm/_logs/2026-debug-0.log',
  ].join('\n');

  it('keeps every npm error line of a long npm log within 40 lines and 4 KiB, marking the cuts', () => {
    const excerpt = failureExcerpt(npmLog);
    expect(excerpt).toContain('npm error code ETARGET');
    expect(excerpt).toContain('npm error notarget No matching version found for crucible-no-such-package-zz@99.0.0.');
    expect(excerpt).toContain("npm error notarget a package version that doesn't exist.");
    expect(excerpt).toContain('npm error A complete log of this run');
    expect(excerpt.length).toBeLessThanOrEqual(4096);
    expect(excerpt.split('\n').filter((l) => !l.startsWith('[…')).length).toBeLessThanOrEqual(40);
    expect(excerpt).toMatch(/^\[… [\d,]+ lines cut …\]$/m);
  });

  it("picks the first real error line for the one-line message, not npm's note about its log", () => {
    expect(failureLine(npmLog)).toBe('npm error code ETARGET');
    expect(failureLine('building\ndone\nexit status 3\n')).toBe('exit status 3');
    expect(failureLine('')).toBe('');
  });
});
