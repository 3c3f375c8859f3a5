import { describe, expect, it } from 'vitest';
import { formatStats } from '../../src/cli/format-stats.js';
import { stripAnsi } from '../../src/cli/format.js';
import { aggregateRun } from '../../src/domain/stats/index.js';
import type { AttemptResult, Cause } from '../../src/core/types/index.js';

let next = 0;
function attempt(agent: string, taskId: string, cause: Cause, usage?: { tokens: number; costUsd?: number }): AttemptResult {
  const id = next++;
  return {
    attemptId: `a${id}`,
    runId: 'r',
    taskId,
    taskVersion: '1',
    agent,
    trial: 0,
    index: id,
    schemaVersion: 1,
    verdict: cause === 'passed' ? 'PASS' : cause === 'harness_error' ? 'ERROR' : 'FAIL',
    cause,
    message: '',
    sandbox: 'local',
    checks: [],
    agentResult: {
      stopReason: 'submitted',
      ...(usage
        ? {
            usage: {
              inputTokens: usage.tokens,
              outputTokens: 0,
              cacheReadTokens: 0,
              cacheWriteTokens: 0,
              reasoningTokens: 0,
              requests: 1,
              ...(usage.costUsd !== undefined ? { costUsd: usage.costUsd } : {}),
            },
          }
        : {}),
    },
    timings: { prepareMs: 0, agentMs: 1000, verifyMs: 0, totalMs: 2000 },
    startedAt: '',
    finishedAt: '',
  };
}

describe('formatStats', () => {
  it('shows n/a for an agent whose every attempt errored, and tokens and cost only when reported', () => {
    const stats = aggregateRun(
      [
        attempt('model', 't1', 'passed', { tokens: 12_000, costUsd: 0.02 }),
        attempt('model', 't2', 'tests_failed', { tokens: 30_000 }),
        attempt('broken', 't1', 'harness_error'),
        attempt('broken', 't2', 'harness_error'),
      ],
      { wilsonFloor: true },
    );
    const text = stripAnsi(formatStats(stats));
    expect(text).toMatch(/broken +n\/a +- +0 +0 +n\/a +2 of 2 +harness_error 2/);
    expect(text).toMatch(/model +50\.0% +\[.*\] +2 +2 +50\.0% +0 +passed 1, tests_failed 1/);
    expect(text).toMatch(/tokens mean \/ median \/ p95 +cost mean \/ total/);
    expect(text).toMatch(/model +2\.0s \/ 2\.0s \/ 2\.0s +21\.0k \/ 21\.0k \/ 29\.1k +\$0\.02 \/ \$0\.02 \(1 unpriced\)/);
    expect(text).toMatch(/no scored attempts, so no pass rate, for: broken \(2 harness_error\)/);
    expect(text).toMatch(/broken +model +0 .* not separated/);
  });
});
