import { describe, expect, it } from 'vitest';
import { MAX_JUNIT_CHARS, parseJUnit } from '../../src/domain/evidence/junit.js';

function expectError(xml: string, pattern: RegExp): void {
  const result = parseJUnit(xml);
  expect(result.cases).toEqual([]);
  expect(result.error).toMatch(pattern);
  expect(result.error).not.toMatch(/\n/);
  expect(result.error?.length ?? 0).toBeLessThanOrEqual(200);
}

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<testsuites><testcase classname="c" name="&lol9;"/></testsuites>`;

describe('parseJUnit on hostile or broken input', () => {
  it('refuses text that is not XML', () => {
    expectError('FAILED tests/test_a.py::test_x - assert 1 == 2', /not well-formed XML at line 1/);
  });

  it('refuses an empty or blank report', () => {
    expectError('', /empty/);
    expectError(' \n\t\n', /empty/);
    expectError('\uFEFF', /empty/);
  });

  it('refuses a report cut off mid-write', () => {
    const whole = '<testsuites><testsuite name="s"><testcase classname="c" name="a"/></testsuite></testsuites>';
    expectError(whole.slice(0, 50), /not well-formed XML/);
  });

  it('refuses a billion-laughs DOCTYPE without expanding it', () => {
    expectError(BILLION_LAUGHS, /DOCTYPE/);
  });

  it('refuses an external entity (XXE) DOCTYPE, even after comments and a declaration', () => {
    expectError(
      `<?xml version="1.0"?>\n<!-- generated -->\n<!doctype testsuites [<!ENTITY x SYSTEM "file:///etc/passwd">]>` +
        '<testsuites><testcase classname="c" name="&x;"/></testsuites>',
      /DOCTYPE/,
    );
  });

  it('accepts "<!DOCTYPE" inside a CDATA failure body (an HTML page in an assertion)', () => {
    const result = parseJUnit(
      '<testsuites><testcase classname="c" name="renders">' + '<failure><![CDATA[<!DOCTYPE html><html>&amp;</html>]]></failure></testcase></testsuites>',
    );
    expect(result.error).toBeUndefined();
    // CDATA is literal: its "&amp;" is not decoded.
    expect(result.cases).toEqual([{ id: 'c::renders', status: 'failed', message: '<!DOCTYPE html><html>&amp;</html>' }]);
  });

  it('leaves undeclared entity references as written instead of expanding or failing', () => {
    const result = parseJUnit('<testsuites><testcase classname="c" name="a &lol; &constructor; b"/></testsuites>');
    expect(result.cases.map((c) => c.id)).toEqual(['c::a &lol; &constructor; b']);
  });

  it('refuses a report over the size limit before parsing it', () => {
    const huge = `<testsuites>${' '.repeat(MAX_JUNIT_CHARS)}</testsuites>`;
    expectError(huge, /over the limit/);
  });

  it('parses a large report of many cases', () => {
    const count = 20_000;
    const body = Array.from({ length: count }, (_, i) => `<testcase classname="pkg" name="t${i}" time="0.001"/>`);
    const result = parseJUnit(`<testsuites><testsuite name="s">${body.join('\n')}</testsuite></testsuites>`);
    expect(result.error).toBeUndefined();
    expect(result.cases).toHaveLength(count);
    expect(result.cases[count - 1]).toEqual({ id: 'pkg::t19999', status: 'passed', durationMs: 1 });
  });

  it('refuses nesting deeper than the parser allows, without throwing', () => {
    const depth = 150;
    const xml = `<testsuites>${'<testsuite name="s">'.repeat(depth)}<testcase name="x"/>${'</testsuite>'.repeat(depth)}</testsuites>`;
    expectError(xml, /nested/i);
  });

  it('refuses a testcase without a name, saying where it is', () => {
    expectError(
      '<testsuites><testsuite name="math"><testcase classname="c" name="a"/><testcase classname="c"/></testsuite></testsuites>',
      /testcase #2 in suite "math" has no name/,
    );
    expectError('<testsuites><testcase classname="c" name="  "/></testsuites>', /testcase #1 has no name/);
  });

  it('refuses a document whose root is not a test report', () => {
    expectError('<html><body>502 Bad Gateway</body></html>', /root element is <html>/);
  });

  it('refuses a document with two roots', () => {
    expectError('<testsuites/><testsuites/>', /2 root elements/);
  });

  it('refuses duplicate attributes and unquoted values', () => {
    expectError('<testsuites><testcase name="a" name="b"/></testsuites>', /not well-formed/);
    expectError('<testsuites><testcase name=a/></testsuites>', /not well-formed/);
  });

  it('answers with an error, not an exception, for a non-string argument', () => {
    expectError(undefined as unknown as string, /not text/);
  });
});
