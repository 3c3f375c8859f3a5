import { InputError } from '../../core/errors.js';
import { testIdFromPytestNodeId } from '../../domain/evidence/index.js';
import { unsafePathProblem } from './output.js';

/**
 * Every path a unified diff names (`diff --git`, `---`/`+++`, rename and copy headers), without the
 * `a/` `b/` prefixes, `/dev/null` left out. A path is what `git apply` would write, so each one is
 * checked like any other path from imported data.
 */
export function patchPaths(patch: string): string[] {
  const paths = new Set<string>();
  const lines = patch.split('\n');
  lines.forEach((line, index) => {
    let match = /^diff --git a\/(\S+) b\/(\S+)$/.exec(line);
    if (match) {
      paths.add(match[1] as string);
      paths.add(match[2] as string);
      return;
    }
    // A file header is a `---` line right before a `+++` line; a removed line `-- x` inside a hunk is not.
    if (line.startsWith('--- ') && lines[index + 1]?.startsWith('+++ ')) {
      for (const header of [line, lines[index + 1] as string]) {
        const path = header
          .slice(4)
          .replace(/\t.*$/, '')
          .replace(/^[ab]\//, '');
        if (path !== '/dev/null') paths.add(path);
      }
      return;
    }
    match = /^(?:rename|copy) (?:from|to) (.+)$/.exec(line);
    if (match) paths.add(match[1] as string);
  });
  return [...paths];
}

/** Refuse a patch that writes outside the repo (`..`, absolute paths) or into `.git`. */
export function checkPatchPaths(patch: string, what: string): string[] {
  const paths = patchPaths(patch);
  if (paths.length === 0) throw new InputError(`${what}: not a unified diff (no file headers) (fix: the diff as git diff prints it)`);
  for (const path of paths) {
    const problem = unsafePathProblem(path) ?? (path.split('/').includes('.git') ? 'writes into .git' : undefined);
    if (problem !== undefined) throw new InputError(`${what}: path ${JSON.stringify(path)} ${problem} (fix: a patch may only change files inside the repo)`);
  }
  return paths;
}

/**
 * The Crucible id of a SWE-bench test id, for the JUnit report the generated pytest command writes
 * (`--junitxml`, `--rootdir=.`): `tests/test_x.py::TestC::test_a[p]` → `tests.test_x.TestC::test_a[p]`.
 * Undefined for an id that is not a pytest node id (Django's `test_a (module.Class)`, sympy's bare
 * `test_a`): those repos are run by their own runners, which write no JUnit report.
 */
export function crucibleTestId(sweBenchId: string): string | undefined {
  const bracket = sweBenchId.indexOf('[');
  const address = bracket === -1 ? sweBenchId : sweBenchId.slice(0, bracket);
  if (!/^[^\s:]+\.py(::[^\s:]+)+$/.test(address)) return undefined;
  return testIdFromPytestNodeId(sweBenchId);
}
