import { describe, expect, it } from 'vitest';
import { resolveCiSettings } from '../../src/features/ci/index.js';
import { ConfigError, InputError } from '../../src/core/errors.js';

describe('crucible.ci.yaml', () => {
  it('takes the test command from flags alone, with the defaults a task has', () => {
    const settings = resolveCiSettings(undefined, { testCommand: 'npm test' });
    expect(settings.source).toBe('flags');
    expect(settings.tests).toMatchObject({ command: 'npm test', failToPass: [], passToPass: 'all_others' });
    expect(settings.tests.testPaths).toContain('**/*.test.*');
    // An empty change is reported, not failed, unless the config says otherwise.
    expect(settings.policy.severities.no_changes).toBe('info');
  });

  it('reads the task policy block and lets flags override the file', () => {
    const text = [
      'tests: { command: make test, fail_to_pass: [a::b] }',
      'policy: { preset: strict, allowed_paths: [src/**], severities: { no_changes: error } }',
      'limits: { test_timeout: 30s }',
    ].join('\n');
    const settings = resolveCiSettings({ name: 'crucible.ci.yaml', text }, { failToPass: ['c::d'] });
    expect(settings.tests).toMatchObject({ command: 'make test', failToPass: ['c::d'] });
    expect(settings.policy).toMatchObject({ preset: 'strict', allowedPaths: ['src/**'], severities: { no_changes: 'error' } });
    expect(settings.limits.testTimeoutMs).toBe(30_000);
  });

  it('names the file, line and nearest field of an unknown one', () => {
    expect(() => resolveCiSettings({ name: 'ci.yaml', text: 'tests: { command: x }\npolicy: { forbiden_paths: [a] }\n' }, {})).toThrow(
      /ci\.yaml:2:.*policy\.forbiden_paths.*did you mean "forbidden_paths"/,
    );
    expect(() => resolveCiSettings({ name: 'ci.yaml', text: 'tests: { command: x }\npolicy: { forbiden_paths: [a] }\n' }, {})).toThrow(ConfigError);
  });

  it('needs a test command from the file or a flag', () => {
    expect(() => resolveCiSettings(undefined, {})).toThrow(InputError);
    expect(() => resolveCiSettings({ name: 'ci.yaml', text: 'policy: { preset: strict }\n' }, {})).toThrow(/ci\.yaml: tests\.command is missing/);
  });
});
