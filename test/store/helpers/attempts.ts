import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AttemptResult, Cause, Verdict } from '../../../src/core/types/index.js';
import type { RunMeta } from '../../../src/infra/store/index.js';

/** A temp directory per test file; removed by the returned cleanup. */
export function tempDir(label: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `crucible-store-${label}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function runMeta(runId: string, overrides: Partial<RunMeta> = {}): RunMeta {
  return {
    runId,
    taskSet: 'tasks/demo.yaml',
    createdAt: '2025-03-01T10:00:00.000Z',
    planned: 4,
    agents: ['oracle', 'nop'],
    configHash: 'cfg-1',
    ...overrides,
  };
}

const VERDICT_OF: Record<Cause, Verdict> = {
  passed: 'PASS',
  tests_failed: 'FAIL',
  regression: 'FAIL',
  task_error: 'ERROR',
  tampered: 'FAIL',
  policy_violation: 'FAIL',
  no_changes: 'FAIL',
  agent_timeout: 'FAIL',
  max_turns: 'FAIL',
  budget_exceeded: 'FAIL',
  context_exceeded: 'FAIL',
  agent_crashed: 'FAIL',
  patch_not_applied: 'FAIL',
  resource_exceeded: 'FAIL',
  harness_error: 'ERROR',
  provider_error: 'ERROR',
};

export interface AttemptSpec {
  attemptId: string;
  runId: string;
  taskId?: string;
  agent?: string;
  trial?: number;
  index?: number;
  cause?: Cause;
  finishedAt?: string;
  costUsd?: number | null;
  checks?: number;
}

/** A realistic AttemptResult; `costUsd: null` means usage without a known price, undefined no usage at all. */
export function attempt(spec: AttemptSpec): AttemptResult {
  const cause = spec.cause ?? 'passed';
  const verdict = VERDICT_OF[cause];
  const finishedAt = spec.finishedAt ?? '2025-03-01T10:05:00.000Z';
  const startedAt = new Date(Date.parse(finishedAt) - 60_000).toISOString();
  const checkCount = spec.checks ?? 2;
  return {
    schemaVersion: 1,
    attemptId: spec.attemptId,
    runId: spec.runId,
    taskId: spec.taskId ?? 'task-a',
    taskVersion: '1',
    agent: spec.agent ?? 'oracle',
    trial: spec.trial ?? 0,
    index: spec.index ?? 0,
    verdict,
    cause,
    message: cause === 'passed' ? 'all fail-to-pass tests pass' : `failed: ${cause}`,
    score: cause === 'harness_error' ? undefined : cause === 'passed' ? 100 : 20,
    sandbox: 'bwrap',
    baselineCommit: 'abc123',
    tests:
      cause === 'harness_error'
        ? undefined
        : {
            command: 'npm test',
            exitCode: cause === 'passed' ? 0 : 1,
            timedOut: false,
            durationMs: 1234.5,
            parsed: 5,
            consistent: true,
            failToPass: { total: 2, passed: cause === 'passed' ? 2 : 1, failing: [] },
            passToPass: { total: 3, passed: 3, failing: [] },
            outputTail: 'ok',
          },
    diff: { files: [], filesChanged: 2, added: 10, deleted: 3 },
    checks: Array.from({ length: checkCount }, (_, i) => ({
      id: `check-${i}`,
      passed: i % 2 === 0,
      severity: 'error' as const,
      message: `check ${i}`,
      evidence: { paths: [`src/file${i}.ts`] },
    })),
    agentResult:
      spec.costUsd === undefined
        ? { stopReason: 'end_turn', turns: 7, toolCalls: 12 }
        : {
            stopReason: 'end_turn',
            turns: 7,
            toolCalls: 12,
            usage: {
              inputTokens: 1000,
              outputTokens: 200,
              cacheReadTokens: 50,
              cacheWriteTokens: 10,
              reasoningTokens: 5,
              requests: 3,
              ...(spec.costUsd === null ? {} : { costUsd: spec.costUsd }),
            },
          },
    timings: { prepareMs: 100.4, agentMs: 50_000.6, verifyMs: 2000, totalMs: 52_101 },
    startedAt,
    finishedAt,
    ...(cause === 'harness_error' ? { harnessError: { phase: 'prepare' as const, message: 'clone failed' } } : {}),
  };
}
