import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { junitTestId, testIdFromPytestNodeId } from '../../src/domain/evidence/junit-id.js';
import { parseJUnit } from '../../src/domain/evidence/junit.js';

describe('junitTestId', () => {
  it('joins a meaningful classname and the name with ::', () => {
    expect(junitTestId({ classname: 'tests.test_calc.TestX', name: 'test_y', suitePath: ['pytest'] })).toBe('tests.test_calc.TestX::test_y');
  });

  it('uses the name alone when the classname repeats it', () => {
    expect(junitTestId({ classname: ' math deep', name: ' math deep', suitePath: ['math'] })).toBe('math deep');
  });

  it('falls back to the suite path for a missing, empty or generic "test" classname', () => {
    const suitePath = ['math', 'inner'];
    expect(junitTestId({ name: 'deep', suitePath })).toBe('math > inner > deep');
    expect(junitTestId({ classname: '', name: 'deep', suitePath })).toBe('math > inner > deep');
    expect(junitTestId({ classname: 'test', name: 'deep', suitePath })).toBe('math > inner > deep');
    expect(junitTestId({ classname: 'test', name: 'adds', suitePath: [] })).toBe('adds');
  });

  it("drops pytest's generic outermost suite and unnamed suites from the path", () => {
    expect(junitTestId({ classname: '', name: 'tests.test_x', suitePath: ['pytest'] })).toBe('tests.test_x');
    expect(junitTestId({ name: 'x', suitePath: ['', 'a', ' '] })).toBe('a > x');
    // Only as the outermost suite: a describe block may be called "pytest".
    expect(junitTestId({ name: 'x', suitePath: ['root', 'pytest'] })).toBe('root > pytest > x');
  });
});

describe('testIdFromPytestNodeId', () => {
  it("maps node ids to the ids parsed from pytest's own report", () => {
    const xml = readFileSync(new URL('../fixtures/junit/pytest/report.xml', import.meta.url), 'utf8');
    const parsedIds = new Set(parseJUnit(xml).cases.map((c) => c.id));
    // Node ids exactly as pytest printed them for that run.
    const nodeIds = [
      'tests/sub/test_more.py::test_nested_module',
      'tests/test_calc.py::test_add_wrong',
      'tests/test_calc.py::test_add_param[2-3-6]',
      'tests/test_calc.py::test_add_param[x-y-xy]',
      'tests/test_calc.py::TestCalc::test_raises',
      'tests/test_teardown.py::test_fails_then_teardown_fails',
    ];
    for (const nodeId of nodeIds) expect(parsedIds).toContain(testIdFromPytestNodeId(nodeId));
  });

  it('leaves parameters untouched, even with :: / or . inside', () => {
    expect(testIdFromPytestNodeId('tests/test_x.py::TestA::test_p[a/b::c.py]')).toBe('tests.test_x.TestA::test_p[a/b::c.py]');
  });

  it('maps a module-only node id (a collection error) to the module name', () => {
    const xml = readFileSync(new URL('../fixtures/junit/pytest/collection-error.xml', import.meta.url), 'utf8');
    const [only] = parseJUnit(xml).cases;
    expect(testIdFromPytestNodeId('tests/test_broken_import.py')).toBe(only?.id);
  });
});
