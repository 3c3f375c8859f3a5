import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type RunnerName = 'node-test' | 'vitest' | 'jest' | 'npm-script' | 'pytest' | 'go' | 'cargo';

/** The test runner a repository uses, as `crucible init` writes it into a task. */
export interface DetectedRunner {
  runner: RunnerName;
  /** What it was found by, e.g. `package.json scripts.test`. */
  evidence: string;
  /** The task's `tests.command`: it writes the report `format` names (JUnit to $CRUCIBLE_JUNIT when it can). */
  command: string;
  /** `tests.format` when not JUnit (docs/tasks.md#other-report-formats). */
  format?: 'go-json' | 'cargo-json';
  /** Setup commands (installs; they run with network, once per task). */
  setup: string[];
  /** What the user must still check, written as a comment above the command. */
  note?: string;
}

/** The JS package manager, from its lockfile: how setup installs and how a local binary runs. */
function packageManager(dir: string): { install: string; exec: string } {
  if (existsSync(join(dir, 'pnpm-lock.yaml'))) return { install: 'pnpm install --frozen-lockfile', exec: 'pnpm exec' };
  if (existsSync(join(dir, 'yarn.lock'))) return { install: 'yarn install --frozen-lockfile', exec: 'yarn' };
  if (existsSync(join(dir, 'package-lock.json'))) return { install: 'npm ci --no-audit --no-fund', exec: 'npx' };
  return { install: 'npm install --no-audit --no-fund', exec: 'npx' };
}

const NODE_JUNIT = '--test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT" --test-reporter=spec --test-reporter-destination=stdout';

/**
 * Finds the test runner of the repository at `dir`: package.json's test script (node --test,
 * vitest, jest, or any other script), pytest, go test or cargo, in that order. Undefined when
 * nothing says how the tests run.
 */
export function detectRunner(dir: string): DetectedRunner | undefined {
  const pkgFile = join(dir, 'package.json');
  if (existsSync(pkgFile)) {
    let pkg: { scripts?: Record<string, unknown>; dependencies?: Record<string, unknown>; devDependencies?: Record<string, unknown> } = {};
    try {
      const parsed: unknown = JSON.parse(readFileSync(pkgFile, 'utf8'));
      // `null`, a number or an array says nothing either.
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) pkg = parsed as typeof pkg;
    } catch {
      // An unreadable package.json says nothing; the other runners may still be found.
    }
    const script = typeof pkg.scripts?.test === 'string' ? pkg.scripts.test : undefined;
    const deps = { ...(pkg.dependencies ?? {}), ...(pkg.devDependencies ?? {}) };
    const pm = packageManager(dir);
    const setup = Object.keys(deps).length > 0 ? [pm.install] : [];
    if (script !== undefined) {
      const evidence = `package.json scripts.test (${script})`;
      const nodeTest = /\bnode\s+(?:[^|&;]*\s)?--test\b(.*)$/.exec(script);
      if (nodeTest) {
        // The script's own files (globs, directories), without reporter flags it may already have.
        const args = (nodeTest[1] ?? '')
          .trim()
          .split(/\s+/)
          .filter((a) => a !== '' && !a.startsWith('--test-reporter'));
        return { runner: 'node-test', evidence, command: ['node --test', NODE_JUNIT, ...args].join(' '), setup };
      }
      if (/\bvitest\b/.test(script))
        return { runner: 'vitest', evidence, command: `${pm.exec} vitest run --reporter=junit --outputFile="$CRUCIBLE_JUNIT"`, setup };
      if (/\bjest\b/.test(script)) {
        const note = 'jest writes JUnit through jest-junit: add it to devDependencies';
        return {
          runner: 'jest',
          evidence,
          command: `JEST_JUNIT_OUTPUT_FILE="$CRUCIBLE_JUNIT" ${pm.exec} jest --reporters=jest-junit`,
          setup,
          ...('jest-junit' in deps ? {} : { note }),
        };
      }
      return {
        runner: 'npm-script',
        evidence,
        command: `${pm.exec === 'npx' ? 'npm' : pm.exec.split(' ')[0]} test`,
        setup,
        note: 'make this command write a JUnit report to "$CRUCIBLE_JUNIT" (docs/tasks.md lists each runner\'s flags), or set tests.format',
      };
    }
  }
  if (['pytest.ini', 'pyproject.toml', 'setup.cfg', 'tox.ini', 'setup.py', 'conftest.py'].some((f) => existsSync(join(dir, f))) || hasPythonTests(dir)) {
    return {
      runner: 'pytest',
      evidence: 'Python project files or test_*.py',
      command: 'python3 -m pytest -q --junitxml="$CRUCIBLE_JUNIT"',
      setup: [],
      note: 'add setup: [pip install -e .] (or your install) if the tests need the package or its dependencies installed',
    };
  }
  if (existsSync(join(dir, 'go.mod')))
    return { runner: 'go', evidence: 'go.mod', command: 'go test -json ./...', format: 'go-json', setup: ['go mod download'] };
  if (existsSync(join(dir, 'Cargo.toml'))) {
    return {
      runner: 'cargo',
      evidence: 'Cargo.toml',
      command: 'cargo +nightly test -- -Z unstable-options --format json',
      format: 'cargo-json',
      setup: ['cargo fetch'],
      note: "libtest's JSON needs a nightly toolchain; with cargo-nextest use `cargo nextest run --message-format libtest-json` instead",
    };
  }
  return undefined;
}

function hasPythonTests(dir: string): boolean {
  const names = (d: string): string[] => {
    try {
      return readdirSync(d);
    } catch {
      return [];
    }
  };
  const isTest = (n: string): boolean => /^test_.*\.py$|_test\.py$/.test(n);
  return names(dir).some(isTest) || ['tests', 'test'].some((t) => names(join(dir, t)).some(isTest));
}
