import { describe, expect, it } from 'vitest';
import { meaningfulScore } from '../../src/features/report/format.js';

describe('the score an attempt page and the Markdown report show', () => {
  it('is shown for graded work, pass or fail, and left out where it would mislead', () => {
    expect(meaningfulScore({ cause: 'passed', score: 100 })).toBe(100);
    expect(meaningfulScore({ cause: 'tests_failed', score: 40 })).toBe(40);
    // A nop that changed nothing is not half a pass.
    expect(meaningfulScore({ cause: 'no_changes', score: 50 })).toBeUndefined();
    expect(meaningfulScore({ cause: 'harness_error', score: 50 })).toBeUndefined();
    expect(meaningfulScore({ cause: 'task_error' })).toBeUndefined();
  });
});
