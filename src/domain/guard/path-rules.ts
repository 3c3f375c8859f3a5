/**
 * A filesystem event judged by the post-hoc checks' own path rules, as it happens: the same globs
 * (evidence/glob.ts), the same effective policy (checks/policy.ts), the same test configuration
 * list (evidence/test-config.ts) and the same secret path patterns (redact/secret-detectors.ts).
 * Whether a finding is `blocking` (what `enforce` stops the agent for) follows the severity the
 * task gives the check that would judge it afterwards, so `enforce` stops only what grading would
 * fail anyway; and only for what no later step can undo: a forbidden path or a test touched is
 * the finding, while an out-of-scope scratch file or a file count may be gone by the end, and
 * those checks judge the final change.
 */
import { isAbsolute, posix } from 'node:path';
import { firstMatch, matcher, WHOLE_FILE_TEST_CONFIG } from '../evidence/index.js';
import { SECRET_DETECTORS } from '../../core/redact/index.js';
import type { EffectivePolicy } from '../checks/index.js';
import { BLOCKING } from '../grading/index.js';
import type { CheckId } from '../../core/types/index.js';
import type { TreeEvent } from './watcher.js';
import type { GuardRule } from './types.js';

export interface PathVerdict {
  rule: GuardRule;
  check?: CheckId;
  detail: string;
  blocking: boolean;
}

/** Names that are secrets by name alone, whatever the policy (the .env family is not a detector's). */
const SECRET_NAMES = ['**/.env', '**/.env.*'];

export interface PathRules {
  /** Judges one event; `existedAtStart` says whether the path was in the workspace when the agent began. */
  judge(event: TreeEvent, existedAtStart: boolean): PathVerdict[];
  /** Judges the count of changed files so far. */
  changedFiles(count: number): PathVerdict | undefined;
}

export function pathRules(policy: EffectivePolicy): PathRules {
  const blocking = (check: CheckId): boolean => BLOCKING.has(policy.severities[check]);
  const isTest = matcher(policy.testPaths);
  const isTestConfig = matcher(WHOLE_FILE_TEST_CONFIG);
  const inScope = matcher(policy.allowedPaths);
  const enabledSecretPaths = [
    ...policy.secrets.paths,
    ...SECRET_DETECTORS.filter((d) => policy.secrets.presets.includes(d.preset)).flatMap((d) => d.paths ?? []),
  ];
  const allSecretPaths = [...SECRET_NAMES, ...SECRET_DETECTORS.flatMap((d) => d.paths ?? [])];

  return {
    judge(event, existedAtStart) {
      const { path } = event;
      const out: PathVerdict[] = [];
      // A directory is judged by its files; a file that came and went is no change at all.
      if (event.entry === 'dir' || (event.kind === 'delete' && !existedAtStart)) return out;
      const forbidden = firstMatch(path, policy.forbiddenPaths);
      if (forbidden !== undefined) out.push({ rule: 'forbidden_path', check: 'forbidden_paths', detail: forbidden, blocking: blocking('forbidden_paths') });
      // New test files are set aside before verification, not tampering; new test configuration is.
      if ((isTest(path) && existedAtStart) || isTestConfig(path)) {
        out.push({
          rule: 'test_file',
          check: 'test_tampering',
          detail: isTestConfig(path) ? 'test configuration' : 'test file',
          blocking: blocking('test_tampering'),
        });
      }
      if (policy.allowedPaths.length > 0 && !inScope(path) && !isTest(path)) {
        out.push({ rule: 'out_of_scope', check: 'scope', detail: `outside ${policy.allowedPaths.join(', ')}`, blocking: false });
      }
      if (event.kind === 'write') {
        const enabled = firstMatch(path, enabledSecretPaths);
        const any = enabled ?? firstMatch(path, allSecretPaths);
        if (any !== undefined) out.push({ rule: 'secret_path', check: 'secrets', detail: any, blocking: enabled !== undefined && blocking('secrets') });
      }
      if (event.kind === 'delete' && existedAtStart && out.length === 0) out.push({ rule: 'deletion', detail: `${event.entry} deleted`, blocking: false });
      if (event.kind === 'write' && event.entry === 'symlink' && event.linkTarget !== undefined && escapes(path, event.linkTarget)) {
        out.push({ rule: 'escaping_symlink', detail: `-> ${event.linkTarget}`, blocking: true });
      }
      return out;
    },
    changedFiles(count) {
      const max = policy.limits.filesChanged;
      if (max === undefined || count <= max) return undefined;
      return {
        rule: 'file_count',
        check: 'diff_size',
        detail: `${count} files changed, more than ${max} (policy.max_files_changed)`,
        blocking: false,
      };
    },
  };
}

/** A link whose target, read lexically from where it sits, leaves the workspace (absolute targets always do). */
export function escapes(linkPath: string, target: string): boolean {
  if (isAbsolute(target)) return true;
  const resolved = posix.normalize(posix.join(posix.dirname(linkPath), target));
  return resolved === '..' || resolved.startsWith('../');
}
