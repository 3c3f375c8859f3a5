import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { ConfigError } from '../../src/core/errors.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function load(values: string): ReturnType<typeof loadTaskSet> {
  const dir = tempDir();
  mkdirSync(join(dir, 'repo'));
  const file = join(dir, 'tasks.yaml');
  writeFileSync(
    file,
    `tasks:\n  - id: one\n    repo: { path: repo }\n    instruction: fix it\n    tests: { command: pytest, fail_to_pass: [t::x] }\n    held_out_values:\n${values}`,
  );
  return loadTaskSet(file);
}

const message = (values: string): string => {
  try {
    load(values);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
};

describe('held_out_values in a task file', () => {
  it('loads calls with their arguments and expected values; root defaults to the repository, required to true', () => {
    const task = load(
      "      runtime: python\n      calls:\n        - { call: 'pkg.stats:Median.of', args: [[1, 2]], expect: 1.5 }\n        - { call: 'stats:mode', expect: { a: [null, true] } }\n",
    ).tasks[0];
    expect(task?.heldOutValues).toEqual({
      runtime: 'python',
      root: '.',
      required: true,
      calls: [
        { call: 'pkg.stats:Median.of', args: [[1, 2]], expect: 1.5 },
        { call: 'stats:mode', args: [], expect: { a: [null, true] } },
      ],
    });
  });

  it('names the field and the fix for a call that is not module:function, a Node path that leaves the root, and a root outside the repository', () => {
    expect(message("      runtime: python\n      calls: [{ call: 'stats.median', expect: 1 }]\n")).toMatch(
      /held_out_values\.calls\[0\]\.call.*not module:function.*stats:median/s,
    );
    expect(message("      runtime: node\n      calls: [{ call: '../x.js:f', expect: 1 }]\n")).toMatch(
      /held_out_values\.calls\[0\]\.call.*src\/index\.js:slugify/s,
    );
    expect(message("      runtime: node\n      root: ../elsewhere\n      calls: [{ call: 'x.js:f', expect: 1 }]\n")).toMatch(
      /held_out_values\.root.*leaves the workspace/s,
    );
  });

  it('loads the worked example', () => {
    const tasks = loadTaskSet('examples/held-out-values/tasks.yaml').tasks;
    expect(tasks.map((t) => [t.id, t.heldOutValues?.runtime, t.heldOutValues?.calls.length])).toEqual([
      ['py-median-values', 'python', 3],
      ['js-slugify-values', 'node', 3],
    ]);
  });
});
