import { describe, expect, it } from 'vitest';
import { compareRuns, type RunCells } from '../../src/engine/index.js';

const cells = [{ agent: 'oracle', taskId: 't', n: 1, passes: 1, errors: 0 }];
const run = (runId: string, imageId: string): RunCells => ({
  runId,
  cells,
  environments: new Map([['t', { references: ['img:1'], imageIds: [imageId] }]]),
});

describe('compareRuns with environments', () => {
  it('reports a task whose runs ran one tag on two image ids as different', () => {
    const c = compareRuns(run('a', `sha256:${'1'.repeat(64)}`), run('b', `sha256:${'2'.repeat(64)}`));
    expect(c.environmentChanges).toEqual([
      {
        taskId: 't',
        a: { references: ['img:1'], imageIds: [`sha256:${'1'.repeat(64)}`] },
        b: { references: ['img:1'], imageIds: [`sha256:${'2'.repeat(64)}`] },
      },
    ]);
    expect(c.notes.join('\n')).toMatch(/task t ran on different images \(A 111111111111 from img:1, B 222222222222 from img:1\)/);
  });

  it('says nothing when the image ids are the same, or a run has no provenance', () => {
    const same = compareRuns(run('a', 'sha256:x'), run('b', 'sha256:x'));
    expect(same.environmentChanges).toBeUndefined();
    expect(same.notes).toEqual([]);
    expect(compareRuns(run('a', 'sha256:x'), { runId: 'b', cells }).environmentChanges).toBeUndefined();
  });
});
