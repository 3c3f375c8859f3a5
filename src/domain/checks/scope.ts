import { matcher } from '../evidence/index.js';
import { capped, fail, listShort, pass, type Check } from './types.js';

/**
 * Every changed file lies inside policy.allowed_paths. Files under the test paths are left to
 * test_tampering (new tests are set aside, changed ones are tampering) rather than judged twice.
 */
export const scopeCheck: Check = {
  id: 'scope',
  description: 'every changed file is inside policy.allowed_paths (when set)',
  run(input) {
    const allowed = input.policy.allowedPaths;
    if (allowed.length === 0) return pass('no allowed_paths set: any file may change', { skipped: true });
    const inScope = matcher(allowed);
    const isTest = matcher(input.policy.testPaths);
    const outside = input.diff.files.flatMap((f) => [f.path, f.oldPath].filter((p): p is string => p !== undefined && !inScope(p) && !isTest(p)));
    const unique = [...new Set(outside)];
    const evidence = { allowed, outside: capped(unique) };
    if (unique.length > 0) return fail(`changed outside allowed_paths: ${listShort(unique)}`, evidence);
    return pass('every change is inside allowed_paths', evidence);
  },
};
