import { describe, expect, it } from 'vitest';
import { effectivePolicy } from '../../src/domain/checks/index.js';
import { escapes, pathRules, type TreeEvent } from '../../src/domain/guard/index.js';
import type { PolicySpec, Task } from '../../src/core/types/index.js';

function rulesFor(policy: Partial<PolicySpec>) {
  const task = {
    policy: {
      preset: 'default',
      forbiddenPaths: [],
      allowedPaths: [],
      unsafeCommands: [],
      secrets: { paths: [], literals: [], presets: [] },
      severities: {},
      ...policy,
    },
    tests: { testPaths: ['tests/**'] },
  } as unknown as Pick<Task, 'policy' | 'tests' | 'heldOut'>;
  return pathRules(effectivePolicy(task));
}

const event = (path: string, kind: TreeEvent['kind'] = 'write', entry: TreeEvent['entry'] = 'file', linkTarget?: string): TreeEvent => ({
  kind,
  path,
  entry,
  created: true,
  ...(linkTarget !== undefined ? { linkTarget } : {}),
  changedAtMs: 0,
  detectedAtMs: 0,
});
const rulesOf = (verdicts: Array<{ rule: string; blocking: boolean }>) => verdicts.map((v) => `${v.rule}${v.blocking ? '!' : ''}`);

describe('the guard judges paths by the checks’ rules', () => {
  it('a forbidden path blocks when its check does; the severity the task gives it decides', () => {
    expect(rulesOf(rulesFor({ forbiddenPaths: ['.github/**'] }).judge(event('.github/workflows/x.yml'), false))).toEqual(['forbidden_path!']);
    expect(rulesOf(rulesFor({ forbiddenPaths: ['.github/**'], severities: { forbidden_paths: 'warning' } }).judge(event('.github/x'), false))).toEqual([
      'forbidden_path',
    ]);
  });

  it('test files: a change to one that existed is tampering, a new one is not; new test configuration is', () => {
    const rules = rulesFor({});
    expect(rulesOf(rules.judge(event('tests/test_a.py'), true))).toEqual(['test_file!']);
    expect(rulesOf(rules.judge(event('tests/test_new.py'), false))).toEqual([]);
    expect(rulesOf(rules.judge(event('src/conftest.py'), false))).toEqual(['test_file!']);
  });

  it('a file that came and went is no change; a deleted file that was there is', () => {
    const rules = rulesFor({ allowedPaths: ['src/**'] });
    expect(rules.judge(event('scratch.py', 'delete'), false)).toEqual([]);
    expect(rulesOf(rules.judge(event('src/a.py', 'delete'), true))).toEqual(['deletion']);
    expect(rulesOf(rules.judge(event('README.md', 'delete'), true))).toEqual(['out_of_scope']);
  });

  it('secret-like paths are recorded always, and block only when the policy enables their pattern', () => {
    expect(rulesOf(rulesFor({}).judge(event('deploy/id_rsa'), false))).toEqual(['secret_path']);
    expect(rulesOf(rulesFor({ secrets: { paths: [], literals: [], presets: ['private-keys'] } }).judge(event('deploy/id_rsa'), false))).toEqual([
      'secret_path!',
    ]);
  });

  it('changed files past max_files_changed are recorded, not blocking', () => {
    const rules = rulesFor({ maxFilesChanged: 2 });
    expect(rules.changedFiles(2)).toBeUndefined();
    expect(rules.changedFiles(3)).toMatchObject({ rule: 'file_count', blocking: false });
  });

  it('a symlink escapes when its target, read lexically from where it sits, leaves the workspace', () => {
    expect(escapes('a/link', '../b')).toBe(false);
    expect(escapes('a/link', '../../b')).toBe(true);
    expect(escapes('link', '/etc/passwd')).toBe(true);
    expect(escapes('a/b/link', '../../c/../d')).toBe(false);
    expect(rulesOf(rulesFor({}).judge(event('src/l', 'write', 'symlink', '../..'), false))).toEqual(['escaping_symlink!']);
  });
});
