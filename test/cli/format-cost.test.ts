import { describe, expect, it } from 'vitest';
import { formatCostPerSolve } from '../../src/cli/format-cost.js';
import type { AttemptResult } from '../../src/core/types/index.js';

/** Just the fields cost per solve reads: agent, task, verdict, cause and the metered cost. */
const attempt = (agent: string, taskId: string, passed: boolean, costUsd?: number): AttemptResult =>
  ({
    agent,
    taskId,
    verdict: passed ? 'PASS' : 'FAIL',
    cause: passed ? 'passed' : 'tests_failed',
    agentResult: { stopReason: 'completed', ...(costUsd === undefined ? {} : { usage: { costUsd } }) },
  }) as unknown as AttemptResult;

describe('formatCostPerSolve', () => {
  it('prints each metered agent with its interval and the frontier', () => {
    const tasks = Array.from({ length: 8 }, (_, i) => `t${i}`);
    const attempts = tasks.flatMap((t) => [
      attempt('cheap', t, true, 0.1),
      attempt('cheap', t, true, 0.1),
      attempt('bad', t, false, 0.1),
      attempt('bad', t, false, 0.1),
    ]);
    const text = formatCostPerSolve(attempts);
    expect(text).toContain('  cheap: $0.100 [$0.100, $0.100] per solved task (16 solved, $1.60 spent) · on the frontier');
    expect(text).toContain('  bad: n/a [n/a, n/a] per solved task (0 solved, $1.60 spent) · dominated by cheap');
  });

  it('prints nothing for agents without metering (the reference agents)', () => {
    expect(formatCostPerSolve([attempt('oracle', 't0', true), attempt('nop', 't0', false)])).toBe('');
  });
});
