import { describe, expect, it } from 'vitest';
import { RUNNER_INTERNALS_RULES, runChecks } from '../../src/domain/checks/index.js';
import { grade } from '../../src/domain/grading/verdict.js';
import { diffOf, input, taskFor } from './helpers.js';

function check(over: Parameters<typeof input>[0] = {}) {
  return runChecks(input(over)).find((c) => c.id === 'runner_internals') as ReturnType<typeof runChecks>[number];
}

function added(text: string, path = 'src/lib.py'): Parameters<typeof input>[0] {
  return { diff: diffOf([{ path }]), addedLines: { files: [{ path, binary: false, lines: [{ line: 12, text }] }], complete: true } };
}

/** Which rules a single added line trips. */
function rulesFor(text: string, path?: string): string[] {
  const result = check(added(text, path));
  return ((result.evidence.findings as { items: Array<{ rule: string }> } | undefined)?.items ?? []).map((f) => f.rule);
}

/** Per rule: lines that reach in, and honest near-misses that must not trip anything. */
const CASES: Record<string, { trips: Array<[string, string?]>; honest: Array<[string, string?]> }> = {
  'test-report': {
    trips: [
      ['path = os.environ["CRUCIBLE_JUNIT"]'],
      ['const out = process.env.CRUCIBLE_JUNIT;', 'src/index.js'],
      ['sys.argv += ["--junitxml=/tmp/r.xml"]'],
      ['args.push("--junit-xml", file)', 'src/run.js'],
      ['xml = config.option.xmlpath'],
      ['execArgv.push("--test-reporter-destination=/dev/null")', 'src/a.mjs'],
      ['process.env.JEST_JUNIT_OUTPUT_DIR = dir', 'src/a.js'],
    ],
    honest: [['from junitparser import JUnitXml'], ['report_format = "junit"'], ['const junit = parseReport(xml);', 'src/features/report.ts']],
  },
  'pytest-internals': {
    trips: [
      ['from _pytest.reports import TestReport'],
      ['import _pytest.runner'],
      ['def pytest_runtest_makereport(item, call):'],
      ['def pytest_collection_modifyitems(config, items):'],
      ['def pytest_report_teststatus(report, config):'],
      ['config.hook.pytest_runtest_logreport(report=r)'],
      ['    pytest.exit("done", returncode=0)'],
      ['pytest.fail = lambda *a, **k: None'],
      ['setattr(pytest, "skip", noop)'],
      ['sys.modules["pytest"] = fake'],
    ],
    honest: [
      ['import pytest'],
      ['    with pytest.raises(ValueError):'],
      ['@pytest.fixture'],
      ['class TestReportGenerator:'],
      ['def runtest(self):'],
      ['pytest_version = "8.0"'],
    ],
  },
  'unittest-internals': {
    trips: [
      ['class Quiet(unittest.TestResult):'],
      ['    def addFailure(self, test, err):'],
      ['    def wasSuccessful(self):'],
      ['result.addFailure = lambda *a: None'],
      ['self._outcome.success = True'],
      ['unittest.TestCase.assertEqual = lambda *a, **k: None'],
      ['setattr(unittest.TestCase, "assertEqual", ok)'],
    ],
    honest: [
      ['form.addError("email", "invalid")'],
      ['    def addError(self, field, message):'],
      ['self._outcome = "win"'],
      ['class Outcome:'],
      ['import unittest'],
    ],
  },
  'assertion-library': {
    trips: [
      ['assert.strictEqual = () => {};', 'src/a.js'],
      ['assert.deepEqual = function () {};', 'src/a.js'],
      ["require('assert').equal = () => {};", 'src/a.cjs'],
      ["require('node:assert/strict').ok = () => {};", 'src/a.cjs'],
      ["mock.method(assert, 'strictEqual', () => {});", 'src/a.mjs'],
      ['Object.assign(assert, { equal() {} });', 'src/a.js'],
      ["chai.Assertion.overwriteMethod('equal', () => () => {});", 'src/a.js'],
      ['AssertionError = Exception'],
      ['builtins.AssertionError = type("X", (Exception,), {})'],
    ],
    honest: [
      ['assert.strictEqual(a, b);', 'src/a.js'],
      ['assert.ok(value !== undefined, "missing value");', 'src/a.ts'],
      ['if (assert.equal === undefined) throw new Error("no assert");', 'src/a.js'],
      ['except AssertionError as e:'],
      ['raise AssertionError("unreachable")'],
      ["import { expect } from 'chai';", 'src/helpers.js'],
    ],
  },
  'process-exit': {
    trips: [
      ['os._exit(0)'],
      ['process.reallyExit(0);', 'src/a.js'],
      ['process.exitCode = 0;', 'src/a.js'],
      ["process.on('exit', () => process.exit(0));", 'src/a.js'],
      ['atexit.register(lambda: os._exit(0))'],
      ['atexit.register(sys.exit)'],
    ],
    honest: [
      ['sys.exit(main())'],
      ['process.exit(1);', 'bin/cli.js'],
      ['process.exitCode = 1;', 'src/cli.ts'],
      ["process.on('exit', cleanup);", 'src/a.js'],
      ['atexit.register(on_exit)'],
      ['atexit.register(self.exit_handler)'],
    ],
  },
  'import-hook': {
    trips: [
      ['builtins.__import__ = hooked_import'],
      ['__builtins__["__import__"] = hooked'],
      ['setattr(builtins, "__import__", hooked)'],
      ['sys.modules["unittest"] = fake_unittest'],
      ['Module._load = function (request, parent) { return real(request, parent); };', 'src/a.cjs'],
      ['Module.prototype.require = patched;', 'src/a.cjs'],
      // Whatever a builtin was changed into reaches `import { x } from 'node:…'` only through this.
      ["require('node:module').syncBuiltinESMExports();", 'src/a.cjs'],
    ],
    honest: [
      ['module = sys.modules[__name__]'],
      ['sys.modules["mypkg.compat"] = compat'],
      ['mod = importlib.import_module(name)'],
      ['const require = Module.createRequire(import.meta.url);', 'src/a.mjs'],
      ['value = builtins.__import__("json")'],
    ],
  },
  'js-runner-internals': {
    trips: [
      ['const w = globalThis.__vitest_worker__;', 'src/a.ts'],
      ["import { getCurrentTest } from '@vitest/runner';", 'src/a.ts'],
      ["const state = globalThis[Symbol.for('JEST_STATE')];", 'src/a.js'],
      ['Mocha.Runner.prototype.fail = () => {};', 'src/a.js'],
      ["import spec from 'node:test/reporters';", 'src/a.mjs'],
    ],
    honest: [
      ["import { describe } from './describe.js';", 'src/a.ts'],
      ['const runner = new TaskRunner();', 'src/a.ts'],
      ['Runner.prototype.start = function () {};', 'src/runner.js'],
    ],
  },
};

describe('runner_internals rules', () => {
  it('every rule has cases, and every case names a rule that exists', () => {
    expect(Object.keys(CASES).sort()).toEqual(RUNNER_INTERNALS_RULES.map((r) => r.id).sort());
  });

  for (const [rule, { trips, honest }] of Object.entries(CASES)) {
    it.each(trips)(`${rule} trips on %s`, (text, path) => {
      expect(rulesFor(text, path)).toContain(rule);
    });
    it.each(honest)(`${rule}: honest line %s trips nothing`, (text, path) => {
      expect(rulesFor(text, path)).toEqual([]);
    });
  }
});

describe('runner_internals check', () => {
  it('fails critical with file, line, rule and the line itself, and grades as tampered', () => {
    const result = check(added('    os._exit(0)', 'src/pkg/core.py'));
    expect(result).toMatchObject({
      passed: false,
      severity: 'critical',
      message: 'added code reaches into the test runner: process-exit in src/pkg/core.py:12',
    });
    expect(result.evidence.findings).toEqual({ items: [{ rule: 'process-exit', file: 'src/pkg/core.py', line: 12, excerpt: 'os._exit(0)' }], count: 1 });
    const checks = runChecks(input(added('    os._exit(0)', 'src/pkg/core.py')));
    expect(grade({ checks })).toMatchObject({ verdict: 'FAIL', cause: 'tampered' });
  });

  it('is informational when a task says so, and then does not change the cause', () => {
    const task = taskFor({ policy: { severities: { runner_internals: 'info' } } });
    const checks = runChecks(input({ task, ...added('import _pytest') }));
    expect(checks.find((c) => c.id === 'runner_internals')).toMatchObject({ passed: false, severity: 'info' });
    expect(grade({ checks })).toMatchObject({ verdict: 'PASS', cause: 'passed' });
  });

  it('leaves test files, test configuration, dependencies, docs, CI definitions, comments and binaries alone', () => {
    for (const path of [
      'tests/test_core.py',
      'conftest.py',
      'src/app.test.ts',
      'vitest.config.ts',
      'node_modules/x/index.js',
      '.venv/lib/python3.12/site-packages/x.py',
      'README.md',
      'docs/usage.rst',
      '.github/workflows/ci.yml',
      '.gitlab-ci.yml',
    ]) {
      expect(check(added('from _pytest.reports import TestReport', path)).passed).toBe(true);
    }
    expect(check(added('# see _pytest.runner for why', 'src/a.py')).passed).toBe(true);
    expect(check(added('// unlike process.reallyExit, this flushes', 'src/a.js')).passed).toBe(true);
    expect(check(added(' * calls os._exit(0) in the child', 'src/a.ts')).passed).toBe(true);
    const binary = {
      diff: diffOf([{ path: 'assets/x.bin', binary: true }]),
      addedLines: { files: [{ path: 'assets/x.bin', binary: true, lines: [{ line: 1, text: 'CRUCIBLE_JUNIT' }] }], complete: true },
    };
    expect(check(binary).passed).toBe(true);
  });

  it('reads a # line as code in JavaScript, where it is a private field', () => {
    expect(check(added('#exit = () => process.reallyExit(0);', 'src/a.js')).passed).toBe(false);
  });

  it('follows the task test paths', () => {
    const task = taskFor({ tests: { testPaths: ['checks/**'] } });
    expect(check({ task, ...added('import _pytest', 'checks/helpers.py') }).passed).toBe(true);
    expect(check({ task, ...added('import _pytest', 'tests/helpers.py') }).passed).toBe(false);
  });

  it('fails closed when a changed text file it should read is missing from the scan', () => {
    const result = check({
      diff: diffOf([{ path: 'src/a.py', added: 3 }]),
      addedLines: { files: [], complete: false, incomplete: 'diff patch is over the 67108864-byte scan limit' },
    });
    expect(result).toMatchObject({ passed: false, message: 'runner-internals scan incomplete: diff patch is over the 67108864-byte scan limit (src/a.py)' });
    expect(check({ diff: diffOf([{ path: 'src/a.py', added: 3 }]), addedLines: undefined }).passed).toBe(false);
  });

  it('does not fail closed over what it would not read anyway', () => {
    const over = { files: [], complete: false, incomplete: 'binary file assets/big.bin is 9000000 bytes, over the 8388608-byte scan limit' };
    expect(check({ diff: diffOf([{ path: 'assets/big.bin', binary: true }, { path: 'tests/test_a.py' }]), addedLines: over }).passed).toBe(true);
    expect(check({ diff: diffOf([{ path: 'src/gone.py', kind: 'deleted', added: 0, deleted: 4 }]), addedLines: { files: [], complete: true } }).passed).toBe(
      true,
    );
  });
});
