import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TEST_PATHS, loadTaskSet } from '../../src/domain/config/index.js';
import { matcher, matchesGlob } from '../../src/domain/evidence/glob.js';
import { ConfigError } from '../../src/core/errors.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function load(policy: string): ConfigError | ReturnType<typeof loadTaskSet> {
  const dir = tempDir();
  mkdirSync(join(dir, 'repo'));
  const file = join(dir, 'tasks.yaml');
  writeFileSync(
    file,
    `tasks:\n  - id: a\n    repo: { path: repo }\n    instruction: x\n    tests:\n      command: "true"\n      fail_to_pass: [a]\n    policy:\n${policy}`,
  );
  try {
    return loadTaskSet(file);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
}

describe('policy in task files', () => {
  it('rejects an unknown check name with file:line and the closest check', () => {
    const error = load('      severities:\n        tests: warning\n        test_tamper: error\n');
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(
      /tasks\.yaml:11:9: tasks\[0\]\.policy\.severities\.test_tamper: unknown field "test_tamper" \(fix: did you mean "test_tampering"\?\)/,
    );
  });

  it('rejects a bad severity, a bad regular expression and an unknown secret preset, each at its line', () => {
    expect((load('      severities: { scope: fatal }\n') as ConfigError).message).toMatch(
      /:9:\d+: .*severities\.scope: .*\(fix: use one of: info, warning, error, critical\)/,
    );
    expect((load("      unsafe_commands: ['ok', 'bad(']\n") as ConfigError).message).toMatch(
      /:9:\d+: tasks\[0\]\.policy\.unsafe_commands\[1\]: not a valid regular expression/,
    );
    expect((load('      secrets: { presets: [cloud] }\n') as ConfigError).message).toMatch(/presets\[0\].*use one of: cloud-keys, private-keys, tokens, all/);
  });

  it("merges the examples' default policy into each task", () => {
    const { tasks } = loadTaskSet('examples/tasks.yaml');
    for (const task of tasks) {
      expect(task.policy.secrets.presets).toEqual(['cloud-keys', 'private-keys', 'tokens']);
      expect(task.policy.allowedPaths.length).toBeGreaterThan(0);
    }
  });
});

describe('globs', () => {
  it('match whole paths from the root, ** over any depth including none, and what lies under a match', () => {
    expect(matchesGlob('conftest.py', '**/conftest.py')).toBe(true);
    expect(matchesGlob('a/b/conftest.py', '**/conftest.py')).toBe(true);
    expect(matchesGlob('stats.py', '*.py')).toBe(true);
    expect(matchesGlob('pkg/stats.py', '*.py')).toBe(false);
    expect(matchesGlob('src/deep/a.ts', 'src')).toBe(true);
    expect(matchesGlob('src/deep/a.ts', './src/')).toBe(true);
    expect(matchesGlob('srcx/a.ts', 'src')).toBe(false);
    expect(matchesGlob('.env', '*')).toBe(true);
    expect(matchesGlob('tests/unit/x.py', 'tests/{unit,e2e}/**')).toBe(true);
    expect(matchesGlob('tests/perf/x.py', 'tests/{unit,e2e}/**')).toBe(false);
    expect(matchesGlob('a1.txt', 'a[0-9].txt')).toBe(true);
    expect(matchesGlob('a/b.txt', 'a?b.txt')).toBe(false);
    expect(matchesGlob('file.c++', 'file.c++')).toBe(true);
  });

  it('the default test paths cover the usual layouts and leave sources alone', () => {
    const isTest = matcher(DEFAULT_TEST_PATHS);
    for (const path of [
      'tests/test_x.py',
      'test_x.py',
      'pkg/x_test.py',
      'app/tests.py',
      'conftest.py',
      'test/a.test.mjs',
      'src/a.spec.ts',
      'src/__tests__/a.js',
      'src/__snapshots__/a.test.ts.snap',
      'pkg/x_test.go',
      'pkg/testdata/in.json',
      'spec/a_spec.rb',
    ]) {
      expect(isTest(path), path).toBe(true);
    }
    for (const path of ['src/a.ts', 'stats.py', 'lib/testing.py', 'src/contest.py', 'docs/test-plan.md']) expect(isTest(path), path).toBe(false);
  });
});
