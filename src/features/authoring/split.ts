/**
 * Which of a fix's changed paths are its tests and which are the fix itself. The split must agree
 * with grading: a path grading takes from the baseline (a test path, a test runner's configuration)
 * cannot be part of the oracle's change, since verification would put the baseline's copy back.
 */
import { DEFAULT_TEST_PATHS } from '../../domain/config/index.js';
import { firstMatch, WHOLE_FILE_TEST_CONFIG } from '../../domain/evidence/index.js';

/**
 * The globs `task new` calls tests by default: grading's own (DEFAULT_TEST_PATHS, which covers
 * `test/**`, `tests/**`, `spec/**`, `*.test.*`, `test_*.py`…), `*_test.*` in any language, and a
 * package's one `test.js` at its root (left-pad's shape, common in small npm packages).
 */
export const SCAFFOLD_TEST_PATHS: readonly string[] = [...DEFAULT_TEST_PATHS, '**/*_test.*', 'test.js', 'test.mjs', 'test.cjs'];

export interface PathSplit {
  /** Paths that go into the task's starting point (the tests, and runner configuration). */
  tests: string[];
  /** Paths that make up the oracle patch. */
  source: string[];
  /** The globs that classified each test path (runner configuration is named by its glob too). */
  matchedBy: Map<string, string>;
}

export function splitPaths(paths: readonly string[], testGlobs: readonly string[]): PathSplit {
  const tests: string[] = [];
  const source: string[] = [];
  const matchedBy = new Map<string, string>();
  for (const path of paths) {
    const glob = firstMatch(path, testGlobs) ?? firstMatch(path, WHOLE_FILE_TEST_CONFIG);
    if (glob === undefined) source.push(path);
    else {
      tests.push(path);
      matchedBy.set(path, glob);
    }
  }
  return { tests, source, matchedBy };
}

/**
 * The `test_paths` the task must declare so grading guards every test path the split found, or
 * undefined when the task's effective globs (`effective`) already do. Runner configuration needs
 * no glob: grading guards it whatever test_paths says.
 */
export function neededTestPaths(split: PathSplit, effective: readonly string[]): string[] | undefined {
  const missing = new Set<string>();
  for (const path of split.tests) {
    if (firstMatch(path, effective) !== undefined || firstMatch(path, WHOLE_FILE_TEST_CONFIG) !== undefined) continue;
    const glob = split.matchedBy.get(path);
    if (glob !== undefined) missing.add(glob);
  }
  return missing.size === 0 ? undefined : [...effective, ...missing];
}
