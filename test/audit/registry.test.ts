import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTRACT, defaultRegistry, findRegistry, loadRegistry } from '../../src/features/audit/index.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { ConfigError } from '../../src/core/errors.js';
import { crucible } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const tasks = loadTaskSet('examples/tasks.yaml').tasks;

function registryFile(text: string): string {
  const file = join(tempDir(), 'registry.yaml');
  writeFileSync(file, text);
  return file;
}

const HEAD = 'registry: demo\nversion: 1.0.0\nfamilies:\n';

/** The one-line error loadRegistry throws for `text`. */
function errorOf(text: string): string {
  const file = registryFile(text);
  try {
    loadRegistry(file, tasks);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message.replace(file, '<file>');
  }
  throw new Error('the registry loaded');
}

describe('benchmark registry', () => {
  it('loads the bundled examples registry: families by tag, defaults for oracle and nop, every task registered', () => {
    const registry = loadRegistry('examples/registry.yaml', tasks);
    expect(registry).toMatchObject({ name: 'crucible-examples', version: '1.0.0', unregistered: [] });
    expect(registry.families.map((f) => [f.id, f.taskIds])).toEqual([
      ['js-node-test', ['js-slugify', 'js-sortby', 'js-csv-quoting']],
      ['ts-node-test', ['ts-lru-recency']],
      ['py-pytest', ['py-median', 'py-roman-subtractive']],
    ]);
    const js = registry.families[0]?.contract;
    expect(js?.oracle).toEqual(DEFAULT_CONTRACT.oracle);
    expect(js?.nop).toEqual({ verdict: 'FAIL', cause: 'no_changes', mustPass: [], mustFail: ['tests', 'no_changes'] });
    expect(js?.tamper).toEqual({ verdict: 'FAIL', cause: 'tampered', mustPass: [], mustFail: ['test_tampering', 'tests'] });
  });

  it('selects by task id, overrides the default contract per agent, and lists tasks no family selects', () => {
    const file = registryFile(`${HEAD}  - id: one\n    version: 2.1.0-rc.1\n    tasks: [py-median]\n    contract:\n      oracle: { verdict: PASS }\n`);
    const registry = loadRegistry(file, tasks);
    expect(registry.families[0]).toMatchObject({ id: 'one', version: '2.1.0-rc.1', taskIds: ['py-median'] });
    // PASS only ever comes with `passed`; must_pass not given: no check is required.
    expect(registry.families[0]?.contract.oracle).toEqual({ verdict: 'PASS', cause: 'passed', mustPass: [], mustFail: [] });
    expect(registry.unregistered).toEqual(['js-slugify', 'js-sortby', 'js-csv-quoting', 'ts-lru-recency', 'py-roman-subtractive']);
  });

  it('without a registry: one family named after the task set, every task under the default contract', () => {
    const registry = defaultRegistry('My Tasks', tasks);
    expect(registry).toMatchObject({ name: 'my-tasks', version: '0.0.0', unregistered: [] });
    expect(registry.families).toEqual([{ id: 'my-tasks', version: '0.0.0', taskIds: tasks.map((t) => t.id), contract: DEFAULT_CONTRACT }]);
    expect(Object.keys(DEFAULT_CONTRACT)).toEqual(['oracle', 'nop']);
    // registry.yaml beside the task set is found; none beside a task set elsewhere.
    expect(findRegistry('examples/tasks.yaml')).toBe(join(process.cwd(), 'examples', 'registry.yaml'));
    expect(findRegistry(join(tempDir(), 'tasks.yaml'))).toBeUndefined();
  });

  it.each([
    [
      'an unknown top-level field',
      'registry: demo\nversion: 1.0.0\nfamiles: []\n',
      '<file>:3:1: familes: unknown field "familes" (fix: did you mean "families"?)',
    ],
    [
      'an unknown field in a contract',
      `${HEAD}  - id: a\n    version: 1.0.0\n    tasks: [py-median]\n    contract:\n      oracle: { verdict: PASS, must_pas: all }\n`,
      '<file>:8:32: families[0].contract.oracle.must_pas: unknown field "must_pas" (fix: did you mean "must_pass"?)',
    ],
    [
      'a version that is not semver',
      `${HEAD}  - id: a\n    version: '1.0'\n    tasks: [py-median]\n`,
      '<file>:5:5: families[0].version: not a semantic version',
    ],
    [
      'a verdict that does not exist',
      `${HEAD}  - id: a\n    version: 1.0.0\n    tasks: [py-median]\n    contract:\n      nop: { verdict: FAILED }\n`,
      '<file>:8:14: families[0].contract.nop.verdict: Invalid option: expected one of "PASS"|"FAIL"|"ERROR" (fix: use one of: PASS, FAIL, ERROR)',
    ],
    [
      'a check id that does not exist',
      `${HEAD}  - id: a\n    version: 1.0.0\n    tasks: [py-median]\n    contract:\n      nop: { verdict: FAIL, must_fail: [test] }\n`,
      'families[0].contract.nop.must_fail[0]',
    ],
    [
      'a task id the task set does not have',
      `${HEAD}  - id: a\n    version: 1.0.0\n    tasks: [py-medain]\n`,
      '<file>:6:13: families[0].tasks[0]: no task "py-medain" in the task set (fix: did you mean "py-median"?)',
    ],
    ['a tag no task has', `${HEAD}  - id: a\n    version: 1.0.0\n    tags: [rust]\n`, '<file>:6:12: families[0].tags[0]: no task has the tag "rust"'],
    [
      'a family that selects nothing',
      `${HEAD}  - id: a\n    version: 1.0.0\n`,
      'families[0]: selects no tasks (fix: add tasks: [<task id>, …] or tags: [<tag>, …])',
    ],
    [
      'a task in two families',
      `${HEAD}  - id: a\n    version: 1.0.0\n    tags: [python]\n  - id: b\n    version: 1.0.0\n    tasks: [py-median]\n`,
      'families[1]: task "py-median" is already in family "a" (fix: put each task in one family (narrow tasks: or tags:))',
    ],
    [
      'a family id used twice',
      `${HEAD}  - id: a\n    version: 1.0.0\n    tags: [python]\n  - id: a\n    version: 1.0.0\n    tags: [javascript]\n`,
      'families[1].id: family id "a" is used twice',
    ],
    [
      'an agent that is not a reference agent',
      `${HEAD}  - id: a\n    version: 1.0.0\n    tags: [python]\n    contract:\n      tampr: { verdict: FAIL }\n`,
      'families[0].contract.tampr: "tampr" is not a reference agent (fix: did you mean "tamper"?)',
    ],
    [
      'a verdict that never comes with the cause',
      `${HEAD}  - id: a\n    version: 1.0.0\n    tags: [python]\n    contract:\n      oracle: { verdict: PASS, cause: tests_failed }\n`,
      'families[0].contract.oracle: verdict PASS never comes with cause tests_failed',
    ],
    [
      'a check that must both pass and fail',
      `${HEAD}  - id: a\n    version: 1.0.0\n    tags: [python]\n    contract:\n      nop: { verdict: FAIL, must_pass: [tests], must_fail: [tests] }\n`,
      'families[0].contract.nop: check tests cannot both pass and fail',
    ],
  ])('rejects %s naming the file, field and fix', (_name, text, expected) => {
    expect(errorOf(text)).toContain(expected);
  });

  it('is refused by `crucible audit` before any attempt runs: exit 2, one line', () => {
    const out = tempDir();
    const file = registryFile(`${HEAD}  - id: a\n    version: 1.0.0\n    tasks: [py-median]\n    contrat: {}\n`);
    const result = crucible(['audit', 'examples/tasks.yaml', '--registry', file, '--out', out]);
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe(`error ${file}:7:5: families[0].contrat: unknown field "contrat" (fix: did you mean "contract"?)`);
  });
});
