import { firstMatch } from '../evidence/index.js';
import { capped, fail, listShort, pass, type Check } from './types.js';

export const forbiddenPathsCheck: Check = {
  id: 'forbidden_paths',
  description: 'no changed file matches policy.forbidden_paths',
  run(input) {
    const patterns = input.policy.forbiddenPaths;
    if (patterns.length === 0) return pass('no forbidden paths set', { skipped: true });
    const hits = input.diff.files.flatMap((f) =>
      [f.path, f.oldPath].flatMap((path) => {
        const pattern = path === undefined ? undefined : firstMatch(path, patterns);
        return path !== undefined && pattern !== undefined ? [{ path, kind: f.kind, pattern }] : [];
      }),
    );
    const evidence = { patterns, hits: capped(hits) };
    if (hits.length > 0) return fail(`changed forbidden paths: ${listShort(hits.map((h) => `${h.path} (${h.pattern})`))}`, evidence);
    return pass('no forbidden path changed', evidence);
  },
};
