/**
 * The test id rule: how one JUnit `<testcase>` becomes the id that task authors write into
 * `fail_to_pass` / `pass_to_pass`. Ids are matched exactly, so the rule must be stable across
 * runs and short enough to type. Given the decoded, trimmed `classname` and `name` attributes and
 * the names of the enclosing `<testsuite>` elements (outermost first):
 *
 * 1. `classname` set, not the generic `test`, and different from `name`
 *    → `${classname}::${name}`
 *      pytest   `tests.test_calc::test_add`, `tests.test_calc.TestCalc::test_in_class`
 *      vitest   `src/calc.test.ts::math > inner > deep`
 *      go       `example.com/calc::TestTable/negative_numbers`
 * 2. `classname` equal to `name` (jest-junit's default templates write the same string twice)
 *    → `${name}`
 *      jest     `math inner deep` (default options; see the fixture README for better options)
 * 3. otherwise (no classname, or node:test's fixed `classname="test"`)
 *    → enclosing suite names and the name, joined by ` > `
 *      node     `math > inner > deep`, top level `adds`
 *    The outermost suite is left out when it is pytest's default `<testsuite name="pytest">`, so a
 *    pytest collection error (empty classname) gets `tests.test_broken`, the same id
 *    {@link testIdFromPytestNodeId} gives, rather than `pytest > tests.test_broken`.
 *
 * Tabs and line breaks inside names become spaces (what XML attribute normalisation would do) and
 * the ends are trimmed, so jest-junit's `" adds"` is `adds`.
 */

/** Classnames that say nothing about where a test lives. node:test writes `test` for every case. */
const GENERIC_CLASSNAMES: ReadonlySet<string> = new Set(['test']);

/** Outermost suite names that are a runner's fixed label rather than a describe block. */
const GENERIC_ROOT_SUITES: ReadonlySet<string> = new Set(['pytest']);

export const CLASSNAME_SEPARATOR = '::';
export const SUITE_SEPARATOR = ' > ';

export interface TestCaseNaming {
  name: string;
  classname?: string;
  /** Names of the enclosing `<testsuite>` elements, outermost first. */
  suitePath: readonly string[];
}

export function normaliseName(raw: string): string {
  return raw.replace(/[\t\r\n]/g, ' ').trim();
}

export function junitTestId(naming: TestCaseNaming): string {
  const name = normaliseName(naming.name);
  const classname = normaliseName(naming.classname ?? '');
  if (classname !== '' && !GENERIC_CLASSNAMES.has(classname)) {
    return classname === name ? name : `${classname}${CLASSNAME_SEPARATOR}${name}`;
  }
  const suites = naming.suitePath.map(normaliseName).filter((s) => s !== '');
  if (suites.length > 0 && GENERIC_ROOT_SUITES.has(suites[0] ?? '')) suites.shift();
  return [...suites, name].join(SUITE_SEPARATOR);
}

/**
 * The id a pytest node id (`tests/test_calc.py::TestCalc::test_x[a-b]`, the form SWE-bench and
 * pytest's own output use) gets under the rule above. Mirrors how pytest's junitxml plugin derives
 * `classname`: path separators become dots, a trailing `.py` goes, class names join with dots, and
 * everything from the first `[` (parameters) stays untouched.
 */
export function testIdFromPytestNodeId(nodeId: string): string {
  const bracket = nodeId.indexOf('[');
  const address = bracket === -1 ? nodeId : nodeId.slice(0, bracket);
  const params = bracket === -1 ? '' : nodeId.slice(bracket);
  const parts = address.split('::');
  parts[0] = (parts[0] ?? '').replace(/\//g, '.').replace(/\.py$/, '');
  const name = `${parts.pop() ?? ''}${params}`;
  return junitTestId({ name, classname: parts.join('.'), suitePath: [] });
}
