import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTaskTests } from '../../src/engine/task-tests.js';
import { loadRunInput } from '../../src/features/suite/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

describe('runTaskTests with a relative state directory', () => {
  // The CLI default is `.crucible`, relative to where the user runs it; git runs with the
  // workspace as its cwd, where that path names nothing (issue 27: "not a git repository").
  it('lists the tests at the baseline as with an absolute one', async () => {
    const input = loadRunInput('examples/tasks.yaml');
    const task = input.tasks.find((t) => t.id === 'js-slugify');
    if (task === undefined) throw new Error('examples/tasks.yaml has no js-slugify');
    const stateDir = relative(process.cwd(), tempDir());
    expect(stateDir.startsWith('/')).toBe(false);
    const [run] = await runTaskTests(task, { stateDir, sandbox: 'bwrap', sides: ['baseline'] });
    expect(run?.evidence.invalidReason).toBeUndefined();
    expect(run?.tests.map((t) => t.id)).toContain('slugify > strips leading and trailing punctuation');
  });
});
