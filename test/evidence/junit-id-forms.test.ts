import { describe, expect, it } from 'vitest';
import { parseJUnit } from '../../src/domain/evidence/junit.js';

/**
 * The id forms docs/tasks.md promises for runners that have no real fixture in test/fixtures/junit:
 * each report is the shape the reporter's own documentation and tests show, cut to a few cases.
 */
function ids(xml: string): string[] {
  const result = parseJUnit(xml);
  expect(result.error).toBeUndefined();
  return result.cases.map((c) => `${c.status} ${c.id}`);
}

describe('id forms of reporters without a real fixture', () => {
  it('mocha-junit-reporter: classname is the title, name the full title (switched with testCaseSwitchClassnameAndName)', () => {
    const byDefault = `<testsuites name="Mocha Tests"><testsuite name="Root Suite"/><testsuite name="math">
      <testcase name="math adds numbers" classname="adds numbers"/>
      <testcase name="math divides" classname="divides"><failure message="expected 1 to equal 2"/></testcase>
    </testsuite></testsuites>`;
    expect(ids(byDefault)).toEqual(['passed adds numbers::math adds numbers', 'failed divides::math divides']);
    const switched = '<testsuites><testsuite name="math"><testcase name="adds numbers" classname="math adds numbers"/></testsuite></testsuites>';
    expect(ids(switched)).toEqual(['passed math adds numbers::adds numbers']);
  });

  it('Maven surefire (reports merged into one file): class::method, parameters kept', () => {
    const merged = `<testsuites>
      <testsuite name="com.example.CalcTest"><properties><property name="java.version" value="21"/></properties>
        <testcase name="adds" classname="com.example.CalcTest" time="0.01"/>
        <testcase name="divides(int, int)[2]" classname="com.example.CalcTest"><failure type="org.opentest4j.AssertionFailedError"/></testcase>
        <testcase name="later" classname="com.example.CalcTest"><skipped/></testcase>
      </testsuite>
    </testsuites>`;
    expect(ids(merged)).toEqual([
      'passed com.example.CalcTest::adds',
      'failed com.example.CalcTest::divides(int, int)[2]',
      'skipped com.example.CalcTest::later',
    ]);
  });

  it('cargo nextest: binary id::test path', () => {
    const nextest = `<testsuites name="nextest-run"><testsuite name="my-crate::integration">
      <testcase name="tests::adds" classname="my-crate::integration"/>
      <testcase name="divides" classname="my-crate::integration"><failure type="test failure">details</failure><rerunFailure type="test failure"/></testcase>
    </testsuite><testsuite name="my-crate"><testcase name="parse::tests::empty" classname="my-crate"/></testsuite></testsuites>`;
    expect(ids(nextest)).toEqual([
      'passed my-crate::integration::tests::adds',
      'failed my-crate::integration::divides',
      'passed my-crate::parse::tests::empty',
    ]);
  });

  it("cargo2junit: the test's own module path", () => {
    const cargo = `<testsuites><testsuite id="0" name="cargo test #0" package="testsuite/cargo test #0">
      <testcase name="fails" time="0" classname="tests"><failure type="cargo test" message="failed tests::fails"/></testcase>
      <testcase name="success" time="0" classname="parse::tests"/>
    </testsuite></testsuites>`;
    expect(ids(cargo)).toEqual(['failed tests::fails', 'passed parse::tests::success']);
  });

  it('tape through tap-junit: test name > #assertion number and message', () => {
    const tap = `<testsuites tests="4" name="Tap-Junit"><testsuite tests="3" name="1 === 1">
      <testcase name="#1 test is equal"/>
      <testcase name="#2 test skip extra # SKIP"><skipped/></testcase>
    </testsuite><testsuite tests="1" name="2 === 2"><testcase name="#3 should be equal"><failure message="should be equal"/></testcase></testsuite></testsuites>`;
    expect(ids(tap)).toEqual(['passed 1 === 1 > #1 test is equal', 'skipped 1 === 1 > #2 test skip extra # SKIP', 'failed 2 === 2 > #3 should be equal']);
  });
});
