import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type RunnerName = 'node-test' | 'vitest' | 'jest' | 'mocha' | 'tape' | 'node-tap' | 'ava' | 'npm-script' | 'pytest' | 'unittest' | 'go' | 'cargo';

/** The stream formats init may write as `tests.format` (JUnit, the default, is written as nothing). */
export type InitFormat = 'tap' | 'go-json' | 'cargo-json' | 'pytest';

/** The test runner a repository uses, as `crucible init` writes it into a task. */
export interface DetectedRunner {
  runner: RunnerName;
  /** What it was found by, e.g. `package.json scripts.test`. */
  evidence: string;
  /** The task's `tests.command`: it writes the report `format` names (JUnit to $CRUCIBLE_JUNIT when it can). */
  command: string;
  /** `tests.format` when not JUnit (docs/tasks.md#other-report-formats). */
  format?: InitFormat;
  /** Setup commands (installs; they run with network, once per task). */
  setup: string[];
  /** What the user must still check, written as a comment above the command. */
  note?: string;
}

interface PackageJson {
  scripts?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
}

/** The JS package manager, from its lockfile: how setup installs, how a script and a local binary run. */
function packageManager(dir: string): { name: 'pnpm' | 'yarn' | 'npm'; install: string; exec: string; add: string } {
  if (existsSync(join(dir, 'pnpm-lock.yaml')))
    return { name: 'pnpm', install: 'pnpm install --frozen-lockfile', exec: 'pnpm exec', add: 'pnpm add --save-dev' };
  if (existsSync(join(dir, 'yarn.lock'))) return { name: 'yarn', install: 'yarn install --frozen-lockfile', exec: 'yarn', add: 'yarn add --dev' };
  const install = existsSync(join(dir, 'package-lock.json')) ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund';
  return { name: 'npm', install, exec: 'npx', add: 'npm install --no-save --no-audit --no-fund' };
}

const NODE_JUNIT = '--test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT" --test-reporter=spec --test-reporter-destination=stdout';

/** A script that is one command, so arguments given after `--` reach that command's runner. */
function singleCommand(script: string): boolean {
  return !/&&|\|\||[;|&<>`$]/.test(script);
}

/**
 * Finds the test runner of the repository at `dir` and the command that makes it report per-test
 * results in a format Crucible reads: package.json's test script and dev dependencies (node
 * --test, vitest, jest, mocha, tape, node-tap, ava, any other script), pytest or unittest, go test,
 * cargo, in that order. Undefined when nothing says how the tests run. What is chosen here is a
 * first reading: `crucible init` confirms it from the run's own output (report-sniff.ts).
 */
export function detectRunner(dir: string): DetectedRunner | undefined {
  const pkgFile = join(dir, 'package.json');
  if (existsSync(pkgFile)) {
    const found = detectJsRunner(dir, readPackageJson(pkgFile));
    if (found) return found;
  }
  if (['pytest.ini', 'pyproject.toml', 'setup.cfg', 'tox.ini', 'setup.py', 'conftest.py'].some((f) => existsSync(join(dir, f))) || hasPythonTests(dir)) {
    // pytest runs unittest's TestCase classes too, and writes JUnit: one command for both.
    const unittest = !mentionsPytest(dir) && usesUnittest(dir);
    return {
      runner: unittest ? 'unittest' : 'pytest',
      evidence: unittest ? 'test_*.py files importing unittest' : 'Python project files or test_*.py',
      command: 'python3 -m pytest -q -p no:cacheprovider --junitxml="$CRUCIBLE_JUNIT"',
      setup: [],
      note: unittest
        ? 'pytest runs the unittest tests and writes JUnit; if it is not installed where the tests run, add setup: [python3 -m pip install pytest]'
        : 'add setup: [pip install -e .] (or your install) if the tests need the package or its dependencies installed',
    };
  }
  if (existsSync(join(dir, 'go.mod')))
    return { runner: 'go', evidence: 'go.mod', command: 'go test -json ./...', format: 'go-json', setup: ['go mod download'] };
  if (existsSync(join(dir, 'Cargo.toml'))) {
    return {
      runner: 'cargo',
      evidence: 'Cargo.toml',
      // RUSTC_BOOTSTRAP lets a stable toolchain's libtest print its JSON, which otherwise needs nightly.
      command: 'RUSTC_BOOTSTRAP=1 cargo test -- -Z unstable-options --format json',
      format: 'cargo-json',
      setup: ['cargo fetch'],
    };
  }
  return undefined;
}

function readPackageJson(file: string): PackageJson {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    // `null`, a number or an array says nothing either.
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as PackageJson;
  } catch {
    // An unreadable package.json says nothing; the other runners may still be found.
  }
  return {};
}

function detectJsRunner(dir: string, pkg: PackageJson): DetectedRunner | undefined {
  const testScript = typeof pkg.scripts?.test === 'string' ? pkg.scripts.test : undefined;
  if (testScript === undefined) return undefined;
  // `"test": "npm run tests-only"` (with lint in pretest, an audit in posttest, which need network):
  // the delegated script is what runs the tests, and running it directly skips test's hooks.
  const delegated = /^(?:npm|pnpm|yarn)\s+run(?:-script)?\s+([\w:.-]+)$/.exec(testScript.trim())?.[1];
  const delegatedScript = delegated !== undefined ? pkg.scripts?.[delegated] : undefined;
  const script = typeof delegatedScript === 'string' ? delegatedScript : testScript;
  const deps = { ...(pkg.dependencies ?? {}), ...(pkg.devDependencies ?? {}) };
  const has = (name: string): boolean => name in deps;
  const pm = packageManager(dir);
  const setup = Object.keys(deps).length > 0 ? [pm.install] : [];
  const evidence =
    typeof delegatedScript === 'string' ? `package.json scripts.${delegated} (${script}), which scripts.test runs` : `package.json scripts.test (${script})`;
  const npmTest = typeof delegatedScript === 'string' ? `${pm.name} run ${delegated}` : `${pm.name} test`;
  // Extra arguments reach the runner through the package manager (npm needs `--`).
  const withArgs = (args: string): string => `${npmTest} ${pm.name === 'npm' ? '-- ' : ''}${args}`;
  const nodeTest = /\bnode\s+(?:[^|&;]*\s)?--test\b(.*)$/.exec(script);
  if (nodeTest) {
    // The script's own files (globs, directories), without reporter flags it may already have.
    const args = (nodeTest[1] ?? '')
      .trim()
      .split(/\s+/)
      .filter((a) => a !== '' && !a.startsWith('--test-reporter'));
    return { runner: 'node-test', evidence, command: ['node --test', NODE_JUNIT, ...args].join(' '), setup };
  }
  if (/\bvitest\b/.test(script) || (has('vitest') && !/\b(jest|mocha|tape|tap|ava)\b/.test(script)))
    return { runner: 'vitest', evidence, command: `${pm.exec} vitest run --reporter=junit --outputFile="$CRUCIBLE_JUNIT"`, setup };
  if (/\bjest\b/.test(script) || (has('jest') && !/\b(mocha|tape|tap|ava)\b/.test(script))) {
    // jest writes JUnit only through jest-junit: setup adds it (with network) when the project lacks it.
    const install = has('jest-junit') ? [] : [`${pm.add} jest-junit`];
    return {
      runner: 'jest',
      evidence,
      command: `JEST_JUNIT_OUTPUT_FILE="$CRUCIBLE_JUNIT" ${pm.exec} jest --ci --reporters=jest-junit`,
      setup: [...(setup.length > 0 ? setup : [pm.install]), ...install],
      ...(install.length > 0 ? { note: 'setup installs jest-junit, which writes the JUnit report; add it to devDependencies to drop that step' } : {}),
    };
  }
  if (/\bmocha\b/.test(script) || has('mocha')) {
    const major = mochaMajor(dir, deps['mocha']);
    if (major !== undefined && major < 2) {
      // mocha 1.x's `mocha` starts `_mocha` with spawn's customFds, which Node dropped: on today's
      // Node it starts nothing and prints nothing. `_mocha` is the runner itself, the same in every
      // version: the script's own arguments, mocha's tap reporter instead of its own.
      const args = /\bmocha\b/.test(script) && singleCommand(script) ? mochaArgs(script) : [];
      return {
        runner: 'mocha',
        evidence: `${evidence}; mocha ${major}.x, whose mocha wrapper starts nothing on Node 20`,
        command: [`${pm.exec} _mocha`, ...args, '--reporter tap'].join(' '),
        format: 'tap',
        setup,
      };
    }
    // mocha's own tap reporter; through the script, so its files and options (.mocharc) stay.
    const command = /\bmocha\b/.test(script) && singleCommand(script) ? withArgs('--reporter=tap') : `${pm.exec} mocha --reporter=tap`;
    return { runner: 'mocha', evidence, command, format: 'tap', setup };
  }
  if (has('ava') || /\bava\b/.test(script)) {
    const command = /\bava\b/.test(script) && singleCommand(script) ? withArgs('--tap') : `${pm.exec} ava --tap`;
    return { runner: 'ava', evidence, command, format: 'tap', setup };
  }
  if (has('tap') || /(^|[\s/])tap(\s|$)/.test(script)) {
    // node-tap prints TAP itself when its output is not a terminal (older versions) or with --reporter=tap.
    const command = /(^|[\s/])tap(\s|$)/.test(script) && singleCommand(script) ? withArgs('--reporter=tap') : npmTest;
    return { runner: 'node-tap', evidence, command, format: 'tap', setup };
  }
  // tape and its kin (tape, tap-producing scripts run by node) print TAP on stdout whatever runs them.
  if (['tape', 'tapes', 'blue-tape', 'tape-promise', '@ljharb/tape'].some(has) || /\btape\b/.test(script))
    return { runner: 'tape', evidence, command: npmTest, format: 'tap', setup };
  return {
    runner: 'npm-script',
    evidence,
    command: npmTest,
    setup,
    note: 'init confirms the format from the output; if it says there is no report, make this command write JUnit to "$CRUCIBLE_JUNIT" or print TAP (format: tap)',
  };
}

/**
 * mocha's major version: the installed one when setup has run, else the lowest the declared range
 * allows (`~1.8.1`, `1.x`, `>=1.2 <3` all start at 1). Undefined when neither says.
 */
function mochaMajor(dir: string, declared: unknown): number | undefined {
  const installed = readPackageJson(join(dir, 'node_modules', 'mocha', 'package.json')) as { version?: unknown };
  const text = typeof installed.version === 'string' ? installed.version : typeof declared === 'string' ? declared : undefined;
  const major = text !== undefined ? /(\d+)/.exec(text)?.[1] : undefined;
  return major !== undefined ? Number(major) : undefined;
}

/** The words after `mocha` in a one-command script, without a reporter it names (`-R spec`, `--reporter=dot`). */
function mochaArgs(script: string): string[] {
  const words = script.trim().split(/\s+/);
  const after = words.slice(words.findIndex((w) => /(^|\/)mocha$/.test(w)) + 1);
  const kept: string[] = [];
  for (let i = 0; i < after.length; i++) {
    const word = after[i] as string;
    if (word === '-R' || word === '--reporter') i++;
    else if (!word.startsWith('--reporter=')) kept.push(word);
  }
  return kept;
}

function listDir(d: string): string[] {
  try {
    return readdirSync(d);
  } catch {
    return [];
  }
}

/** The test_*.py / *_test.py files at the top and in tests/ and test/. */
function pythonTestFiles(dir: string): string[] {
  const isTest = (n: string): boolean => /^test_.*\.py$|_test\.py$/.test(n);
  return ['', 'tests', 'test'].flatMap((sub) =>
    listDir(join(dir, sub))
      .filter(isTest)
      .map((n) => join(dir, sub, n)),
  );
}

function hasPythonTests(dir: string): boolean {
  return pythonTestFiles(dir).length > 0;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function mentionsPytest(dir: string): boolean {
  if (['pytest.ini', 'conftest.py'].some((f) => existsSync(join(dir, f)))) return true;
  return ['pyproject.toml', 'setup.cfg', 'tox.ini', 'setup.py', 'requirements-dev.txt', 'requirements.txt'].some((f) =>
    /\bpytest\b/.test(readText(join(dir, f))),
  );
}

function usesUnittest(dir: string): boolean {
  return pythonTestFiles(dir).some((f) => /^\s*(import unittest|from unittest import)/m.test(readText(f)));
}
