import { posix } from 'node:path';
import { firstMatch } from '../evidence/index.js';
import type { FileChange } from '../../core/types/index.js';
import { capped, fail, listShort, pass, type Check } from './types.js';

export const forbiddenPathsCheck: Check = {
  id: 'forbidden_paths',
  description: 'no changed file matches policy.forbidden_paths, and no symlink the change leaves points outside the workspace',
  run(input) {
    const patterns = input.policy.forbiddenPaths;
    const hits = input.diff.files.flatMap((f) =>
      [f.path, f.oldPath].flatMap((path) => {
        const pattern = path === undefined ? undefined : firstMatch(path, patterns);
        return path !== undefined && pattern !== undefined ? [{ path, kind: f.kind, pattern }] : [];
      }),
    );
    // Whatever the policy says: a link out of the workspace is a way to read or write the host.
    const escaping = input.diff.files.filter(escapesWorkspace).map((f) => ({ path: f.path, target: f.symlink ?? '' }));
    if (patterns.length === 0 && escaping.length === 0) return pass('no forbidden paths set', { skipped: true });
    const evidence = { patterns, hits: capped(hits), ...(escaping.length > 0 ? { escapingSymlinks: capped(escaping) } : {}) };
    const problems = [...hits.map((h) => `${h.path} (${h.pattern})`), ...escaping.map((e) => `${e.path} (a symlink to ${e.target}, outside the workspace)`)];
    if (problems.length > 0) return fail(`changed forbidden paths: ${listShort(problems)}`, evidence);
    return pass(patterns.length === 0 ? 'no forbidden paths set; no symlink points outside the workspace' : 'no forbidden path changed', evidence);
  },
};

/** A symlink whose target is absolute or climbs above the repo's root from where the link sits. */
export function escapesWorkspace(change: Pick<FileChange, 'path' | 'symlink'>): boolean {
  if (change.symlink === undefined) return false;
  const target = change.symlink.replace(/\\/g, '/');
  if (target.startsWith('/') || /^[A-Za-z]:/.test(target)) return true;
  const resolved = posix.normalize(posix.join(posix.dirname(change.path), target));
  return resolved === '..' || resolved.startsWith('../');
}
