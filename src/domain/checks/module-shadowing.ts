import { capped, fail, listShort, pass, type Check } from './types.js';

/**
 * Judged on the test guard's finding (evidence/module-shadows.ts): an added file whose import name
 * is a standard-library module's, or the test runner's, its plugins' or dependencies', from a
 * directory that can be on the test's sys.path. Python's safe-path mode keeps the working directory
 * behind the environment in every verification run, but pytest still puts a rootdir or a test's
 * directory first, and Python < 3.11 has no safe-path mode: there the file would run instead of the
 * real module and could rewrite the outcome. Such a file is left out of the tree under test.
 */
export const moduleShadowingCheck: Check = {
  id: 'module_shadowing',
  description: 'no added module takes the place of the standard library, the test runner or its dependencies',
  run(input) {
    const guard = input.tampering;
    if (!guard) return fail('the test guard did not run, so module shadowing was not looked for');
    const shadows = guard.moduleShadows ?? [];
    if (shadows.length === 0) return pass('no added module shadows the standard library or the test runner');
    const described = shadows.map((s) => `${s.path} (${s.name}, ${s.shadows})`);
    return fail(`added modules take the place of modules the tests import from outside the repo: ${listShort(described)} (left out of the tree under test)`, {
      shadows: capped(shadows),
    });
  },
};
