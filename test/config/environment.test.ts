import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { ConfigError } from '../../src/core/errors.js';
import { taskHash } from '../../src/engine/plan.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** A task set with one task whose extra YAML (indented under the task) is `extra`. */
function taskFile(extra: string, defaults = ''): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'repo'));
  mkdirSync(join(dir, 'env', 'ctx'), { recursive: true });
  writeFileSync(join(dir, 'env', 'ctx', 'Dockerfile'), 'FROM crucible/host:1\n');
  writeFileSync(join(dir, 'env', 'Dockerfile.outside'), 'FROM crucible/host:1\n');
  const file = join(dir, 'tasks.yaml');
  writeFileSync(
    file,
    `${defaults}
tasks:
  - id: one
    repo: { path: repo }
    instruction: fix it
    tests: { command: npm test, fail_to_pass: [a] }
${extra}
`,
  );
  return file;
}

function loadError(extra: string, defaults = ''): ConfigError {
  try {
    loadTaskSet(taskFile(extra, defaults));
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('environment: in a task set', () => {
  it('loads an image reference with the default pull policy, sizes in bytes, and makes memory and pids the limits', () => {
    const file = taskFile('    environment: { image: "python:3.12-slim", memory: 512m, pids: 64, cpus: 1.5, storage: 1g, platform: linux/amd64 }');
    const [task] = loadTaskSet(file).tasks;
    expect(task?.environment).toEqual({
      image: 'python:3.12-slim',
      buildArgs: {},
      pull: 'never',
      platform: 'linux/amd64',
      cpus: 1.5,
      memoryBytes: 512 * 1024 ** 2,
      pids: 64,
      storageBytes: 1024 ** 3,
    });
    expect(task?.limits.resources.memoryBytes).toBe(512 * 1024 ** 2);
    expect(task?.limits.resources.pids).toBe(64);
  });

  it('resolves a Dockerfile and its context against the task-set file, the context defaulting to its directory', () => {
    const file = taskFile('    environment: { dockerfile: env/ctx/Dockerfile, build_args: { PY: "3.12" } }');
    const [task] = loadTaskSet(file).tasks;
    const dir = join(file, '..');
    expect(task?.environment).toEqual({
      dockerfile: join(dir, 'env', 'ctx', 'Dockerfile'),
      context: join(dir, 'env', 'ctx'),
      buildArgs: { PY: '3.12' },
      pull: 'never',
    });
    // Without an environment's memory, the task's own limit stands.
    expect(task?.limits.resources.memoryBytes).toBe(4096 * 1024 ** 2);
  });

  it('takes the defaults environment wholesale, and a task environment replaces it whole', () => {
    const defaults = 'defaults:\n  environment: { image: "base:1", memory: 1g }\n';
    const [inherited] = loadTaskSet(taskFile('', defaults)).tasks;
    expect(inherited?.environment).toMatchObject({ image: 'base:1', memoryBytes: 1024 ** 3 });
    const [own] = loadTaskSet(taskFile('    environment: { dockerfile: env/ctx/Dockerfile }', defaults)).tasks;
    expect(own?.environment?.image).toBeUndefined();
    expect(own?.environment?.memoryBytes).toBeUndefined();
    expect(own?.environment?.dockerfile).toMatch(/Dockerfile$/);
  });

  it('refuses both image and dockerfile, naming both forms', () => {
    const error = loadError('    environment: { image: "a:1", dockerfile: env/ctx/Dockerfile }');
    expect(error.location.field).toBe('tasks[0].environment');
    expect(error.message).toMatch(/different forms/);
    expect(error.message).toMatch(/\{ image, pull, platform, cpus, memory, pids, storage, workdir \} or \{ dockerfile, context, build_args/);
  });

  it('suggests the near match for a misspelt field', () => {
    const error = loadError('    environment: { image: "a:1", memroy: 1g }');
    expect(error.location.field).toBe('tasks[0].environment.memroy');
    expect(error.message).toMatch(/did you mean "memory"/);
  });

  it('refuses a field of the other form (pull with a Dockerfile)', () => {
    const error = loadError('    environment: { dockerfile: env/ctx/Dockerfile, pull: missing }');
    expect(error.message).toMatch(/environment/);
    expect(error.message).toMatch(/pull|different forms|image/);
  });

  it('refuses an image reference that is not one, and a pull policy it does not know', () => {
    expect(loadError('    environment: { image: "Python 3" }').message).toMatch(/tasks\[0\]\.environment\.image.*image reference/);
    expect(loadError('    environment: { image: "a:1", pull: always }').message).toMatch(/use one of: never, missing/);
  });

  it('refuses a bad size with an example, as other size fields do', () => {
    expect(loadError('    environment: { image: "a:1", memory: lots }').message).toMatch(/environment\.memory.*512m or 2g/);
  });

  it('refuses a missing Dockerfile naming the field and where paths are relative to', () => {
    const error = loadError('    environment: { dockerfile: env/nope/Dockerfile }');
    expect(error.location.field).toBe('tasks[0].environment.dockerfile');
    expect(error.message).toMatch(/file not found: env\/nope\/Dockerfile.*relative to/);
  });

  it('refuses a Dockerfile outside its build context', () => {
    const error = loadError('    environment: { dockerfile: env/Dockerfile.outside, context: env/ctx }');
    expect(error.location.field).toBe('tasks[0].environment.dockerfile');
    expect(error.message).toMatch(/outside the build context/);
  });

  it('is part of the task hash, paths relative to the task set', () => {
    const a = loadTaskSet(taskFile('    environment: { image: "a:1" }')).tasks[0];
    const b = loadTaskSet(taskFile('    environment: { image: "a:2" }')).tasks[0];
    const c = loadTaskSet(taskFile('    environment: { dockerfile: env/ctx/Dockerfile }')).tasks[0];
    const d = loadTaskSet(taskFile('    environment: { dockerfile: env/ctx/Dockerfile }')).tasks[0];
    if (!a || !b || !c || !d) throw new Error('tasks missing');
    expect(taskHash(a, {})).not.toBe(taskHash(b, {}));
    // Two checkouts of one task set in different directories: the same task.
    expect(taskHash(c, {})).toBe(taskHash(d, {}));
  });
});
