import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finishFsGuard, startFsGuard } from '../../src/domain/evidence/fs-guard.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function write(root: string, path: string, content: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

describe('the outside-writes guard', () => {
  it('reports new entries next to the workspace, anything in the results directory and changes in watched trees', async () => {
    const root = tempDir();
    const attemptDir = join(root, 'attempt');
    const tree = join(root, 'taskset');
    for (const d of ['workspace', 'home', 'tmp', 'results']) mkdirSync(join(attemptDir, d), { recursive: true });
    write(tree, 'repos/x/a.py', 'a = 1\n');
    write(tree, 'tasks.yaml', 'tasks: []\n');
    const guard = await startFsGuard({
      attemptDir,
      resultsDir: join(attemptDir, 'results'),
      trees: [tree, join(tree, 'repos/x')],
      exclude: [join(tree, '.crucible')],
    });
    writeFileSync(join(attemptDir, 'escaped.txt'), 'x');
    writeFileSync(join(attemptDir, 'trajectory.jsonl'), '{}\n'); // an in-process agent's own log: allowed
    writeFileSync(join(attemptDir, 'results', 'tests.junit.xml'), '<testsuites/>');
    write(tree, 'repos/x/a.py', 'a = 2 # poisoned for later attempts\n');
    write(tree, '.crucible/runs/x', 'the harness itself writes here');
    const evidence = await finishFsGuard(guard);
    expect(evidence.writes.map((w) => `${w.kind} ${w.path.slice(root.length)}`).sort()).toEqual([
      'added /attempt/escaped.txt',
      'added /attempt/results/tests.junit.xml',
      'modified /taskset/repos/x/a.py',
    ]);
    expect(evidence.complete).toBe(true);
  });
});
