import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { ConfigError, InputError } from '../../src/core/errors.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function taskFile(yaml: string): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'repo'));
  writeFileSync(join(dir, 'fix.patch'), 'diff --git a/x b/x\n');
  const file = join(dir, 'tasks.yaml');
  writeFileSync(file, yaml);
  return file;
}

const VALID = `
defaults:
  limits: { agent_timeout: 90s, test_timeout: 2m }
  metadata: { category: bugfix, tags: [base] }
tasks:
  - id: one
    repo: { path: repo }
    instruction: fix it
    tests:
      command: npm test
      fail_to_pass: [a > b]
    oracle: { patch: fix.patch }
  - id: two
    version: 3
    repo: { git: https://example.com/r.git, commit: abc1234 }
    instruction: fix that
    tests: { command: pytest, fail_to_pass: [t::x], pass_to_pass: [t::y] }
    limits: { test_timeout: 500ms }
    metadata: { tags: [own] }
`;

function loadError(yaml: string): ConfigError {
  try {
    loadTaskSet(taskFile(yaml));
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadTaskSet', () => {
  it('merges defaults deeply, task fields winning, arrays replaced', () => {
    const { tasks } = loadTaskSet(taskFile(VALID));
    const [one, two] = tasks;
    expect(one?.limits).toMatchObject({ agentTimeoutMs: 90_000, testTimeoutMs: 120_000, setupTimeoutMs: 600_000 });
    expect(two?.limits.testTimeoutMs).toBe(500);
    expect(two?.limits.agentTimeoutMs).toBe(90_000);
    expect(one?.metadata).toEqual({ category: 'bugfix', difficulty: undefined, tags: ['base'] });
    expect(two?.metadata.tags).toEqual(['own']);
  });

  it('resolves paths, versions, oracle patches and pass_to_pass defaults', () => {
    const file = taskFile(VALID);
    const { tasks } = loadTaskSet(file);
    expect(tasks[0]?.repo).toEqual({ kind: 'local', path: join(file, '..', 'repo') });
    expect(tasks[0]?.version).toBe('1');
    expect(tasks[0]?.oracle?.patch).toBe('diff --git a/x b/x\n');
    expect(tasks[0]?.tests.passToPass).toBe('all_others');
    expect(tasks[1]?.version).toBe('3');
    expect(tasks[1]?.repo).toEqual({ kind: 'git', url: 'https://example.com/r.git', commit: 'abc1234' });
    expect(tasks[1]?.tests.passToPass).toEqual(['t::y']);
  });

  it('names file, line, field and a spelling fix for an unknown field', () => {
    const error = loadError(VALID.replace('fail_to_pass: [a > b]', 'fail_to_pas: [a > b]'));
    expect(error.location.line).toBe(11);
    expect(error.message).toMatch(/tasks\.yaml:11:\d+: tasks\[0\]\.tests\.fail_to_pas: unknown field "fail_to_pas" \(fix: did you mean "fail_to_pass"\?\)/);
    expect(error.message).not.toContain('\n');
    expect(error.exitCode).toBe(2);
  });

  it('points at the line of a wrongly typed value', () => {
    const error = loadError(VALID.replace('fail_to_pass: [a > b]', 'fail_to_pass: 7'));
    expect(error.location.line).toBe(11);
    expect(error.location.field).toBe('tasks[0].tests.fail_to_pass');
  });

  it('reports a missing required field at its parent', () => {
    const error = loadError(VALID.replace('      command: npm test\n', ''));
    expect(error.location.field).toBe('tasks[0].tests.command');
    expect(error.message).toContain('required field is missing');
    expect(error.location.line).toBe(9);
  });

  it('reports invalid YAML with its line', () => {
    const error = loadError('tasks:\n  - id: [unclosed\n');
    expect(error.message).toMatch(/tasks\.yaml:\d+:\d+: invalid YAML/);
  });

  it('rejects a repo path that does not exist, naming the field', () => {
    const error = loadError(VALID.replace('path: repo', 'path: nowhere'));
    expect(error.location.field).toBe('tasks[0].repo.path');
    expect(error.message).toContain('directory not found: nowhere');
  });

  it('rejects duplicate ids and bad durations', () => {
    expect(loadError(VALID.replace('id: two', 'id: one')).message).toContain('duplicate task id "one"');
    expect(loadError(VALID.replace('90s', 'soon')).location.field).toBe('defaults.limits.agent_timeout');
  });

  it('needs exactly one of instruction and instruction_file', () => {
    expect(loadError(VALID.replace('    instruction: fix it\n', '')).message).toContain('exactly one of instruction or instruction_file');
  });

  it('a missing file is an input error, not a crash', () => {
    expect(() => loadTaskSet('/nonexistent/tasks.yaml')).toThrow(InputError);
  });

  it('loads the bundled examples', () => {
    const { tasks } = loadTaskSet('examples/tasks.yaml');
    expect(tasks.length).toBeGreaterThanOrEqual(6);
    expect(tasks.every((t) => t.oracle?.patch?.startsWith('diff --git'))).toBe(true);
    expect(tasks.some((t) => t.heldOut)).toBe(true);
    expect(tasks.some((t) => t.setup.length > 0)).toBe(true);
  });

  it('requires held-out tests unless a task (or its defaults) says required: false', () => {
    const file = taskFile(VALID);
    mkdirSync(join(file, '..', 'held'));
    const heldOut = (block: string): string => VALID.replace('    oracle: { patch: fix.patch }\n', `    oracle: { patch: fix.patch }\n${block}`);
    const load = (yaml: string) => {
      writeFileSync(file, yaml);
      return loadTaskSet(file).tasks[0]?.heldOut;
    };
    expect(load(heldOut('    held_out: { path: held, command: pytest }\n'))?.required).toBe(true);
    expect(load(heldOut('    held_out: { path: held, command: pytest, required: false }\n'))?.required).toBe(false);
    const fromDefaults = heldOut('    held_out: { path: held, command: pytest }\n').replace('defaults:\n', 'defaults:\n  held_out: { required: false }\n');
    expect(load(fromDefaults)?.required).toBe(false);
  });
});
