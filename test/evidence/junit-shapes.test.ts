import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS, parseJUnit } from '../../src/domain/evidence/junit.js';
import type { TestCaseResult } from '../../src/core/types/index.js';

function cases(xml: string): TestCaseResult[] {
  const result = parseJUnit(xml);
  expect(result.error).toBeUndefined();
  return result.cases;
}

describe('parseJUnit statuses', () => {
  it("treats <failure>, <error> and node's failure attribute (even empty) as failed, marking an <error> alone as errored", () => {
    const parsed = cases(`<testsuites>
      <testcase classname="c" name="f"><failure message="boom"/></testcase>
      <testcase classname="c" name="e"><error message="crash">trace</error></testcase>
      <testcase classname="c" name="both"><error message="teardown"/><failure message="assert"/></testcase>
      <testcase classname="test" name="n" failure=""/>
    </testsuites>`);
    expect(parsed).toEqual([
      { id: 'c::f', status: 'failed', message: 'boom' },
      { id: 'c::e', status: 'failed', errored: true, message: 'crash' },
      { id: 'c::both', status: 'failed', message: 'assert' },
      { id: 'n', status: 'failed' },
    ]);
  });

  it('lets a failure win over a skip on the same case', () => {
    const parsed = cases('<testsuites><testcase classname="c" name="x"><skipped/><failure message="no"/></testcase></testsuites>');
    expect(parsed.map((c) => c.status)).toEqual(['failed']);
  });

  it('counts a case whose retries failed but which finally passed as passed', () => {
    const parsed = cases('<testsuite name="s"><testcase classname="c" name="x"><flakyFailure message="once"/></testcase></testsuite>');
    expect(parsed).toEqual([{ id: 'c::x', status: 'passed' }]);
  });

  it('reads a skip reason from the attribute, else from the body', () => {
    const parsed = cases(`<testsuites>
      <testcase classname="c" name="a"><skipped message="later"/></testcase>
      <testcase classname="c" name="b"><skipped>

        platform not supported
      </skipped></testcase>
      <testcase classname="c" name="d"><skipped/></testcase>
    </testsuites>`);
    expect(parsed.map((c) => c.message)).toEqual(['later', 'platform not supported', undefined]);
  });
});

describe('parseJUnit text handling', () => {
  it('decodes predefined entities and numeric references in names and messages', () => {
    const parsed = cases(
      '<testsuites><testcase classname="a&amp;b" name="&lt;&#x41;&#66;&gt; &quot;q&quot; &apos;s&apos;">' +
        '<failure message="first&#10;second"/></testcase></testsuites>',
    );
    expect(parsed).toEqual([{ id: `a&b::<AB> "q" 's'`, status: 'failed', message: 'first' }]);
  });

  it('turns line breaks and tabs inside names into spaces and trims the ends', () => {
    const parsed = cases('<testsuites><testcase classname=" c " name=" multi\nline\tname "/></testsuites>');
    expect(parsed.map((c) => c.id)).toEqual(['c::multi line name']);
  });

  it(`cuts long messages to ${MAX_MESSAGE_CHARS} characters`, () => {
    const long = 'x'.repeat(MAX_MESSAGE_CHARS * 3);
    const [only] = cases(`<testsuites><testcase classname="c" name="t"><failure message="${long}"/></testcase></testsuites>`);
    expect(only?.message).toHaveLength(MAX_MESSAGE_CHARS);
    expect(only?.message?.endsWith('…')).toBe(true);
  });

  it('skips blank leading lines of a failure body', () => {
    const [only] = cases('<testsuites><testcase classname="c" name="t"><failure>\n\n   \n  AssertionError: nope  \n  at x</failure></testcase></testsuites>');
    expect(only?.message).toBe('AssertionError: nope');
  });

  it('survives names that look like prototype properties', () => {
    const parsed = cases('<testsuites><testcase name="__proto__"/><testcase name="constructor"/></testsuites>');
    expect(parsed.map((c) => c.id)).toEqual(['__proto__', 'constructor']);
  });

  it('accepts a byte-order mark, leading blank lines, a declaration and comments', () => {
    const parsed = cases('\uFEFF\n\n<?xml version="1.0" encoding="UTF-8"?>\n<!-- hi --><testsuites><testcase name="a"/><!-- tests 1 --></testsuites>');
    expect(parsed.map((c) => c.id)).toEqual(['a']);
  });
});

describe('parseJUnit structure', () => {
  it('names classname-less cases by their enclosing suites, outermost first', () => {
    const parsed = cases(`<testsuites name="runner">
      <testcase name="top"/>
      <testsuite name="outer"><testsuite name="inner"><testcase name="deep"/></testsuite>
        <testcase classname="test" name="shallow"/></testsuite>
    </testsuites>`);
    expect(parsed.map((c) => c.id)).toEqual(['top', 'outer > inner > deep', 'outer > shallow']);
  });

  it('uses a bare <testsuite> root as the outermost suite', () => {
    const parsed = cases('<testsuite name="Suite"><testcase name="a"/><testcase classname="pkg.Cls" name="b"/></testsuite>');
    expect(parsed.map((c) => c.id)).toEqual(['Suite > a', 'pkg.Cls::b']);
  });

  it('returns no cases and no error for a report with no tests', () => {
    expect(parseJUnit('<testsuites tests="0"/>')).toEqual({ cases: [] });
    expect(parseJUnit('<testsuite name="empty"><properties/></testsuite>')).toEqual({ cases: [] });
  });

  it('ignores properties, output and unknown elements', () => {
    const parsed = cases(`<testsuites><testsuite name="s">
      <properties><property name="testcase" value="not a test"/></properties>
      <system-out><![CDATA[<testcase name="fake"/>]]></system-out>
      <testcase classname="c" name="real"><system-err>noise</system-err></testcase>
      <custom><testcase name="inside unknown element"/></custom>
    </testsuite></testsuites>`);
    expect(parsed.map((c) => c.id)).toEqual(['c::real']);
  });

  it('omits durations that are missing or not numbers', () => {
    const parsed = cases(`<testsuites>
      <testcase classname="c" name="a" time="1.5"/>
      <testcase classname="c" name="b"/>
      <testcase classname="c" name="d" time="1,234.5"/>
      <testcase classname="c" name="e" time="-1"/>
    </testsuites>`);
    expect(parsed.map((c) => c.durationMs)).toEqual([1500, undefined, undefined, undefined]);
  });
});
