import type { AttemptResult, TestRunEvidence } from '../../core/types/index.js';
import type { AttemptExtra } from './rows.js';
import { toStoredTimestamp } from './time.js';

/** Parameter name → column of the attempts table; the upsert statement is built from this. */
export const ATTEMPT_COLUMN_OF = {
  attemptId: 'attempt_id',
  runId: 'run_id',
  taskId: 'task_id',
  taskVersion: 'task_version',
  agent: 'agent',
  trial: 'trial',
  planIndex: 'plan_index',
  verdict: 'verdict',
  cause: 'cause',
  message: 'message',
  score: 'score',
  sandbox: 'sandbox',
  startedAt: 'started_at',
  finishedAt: 'finished_at',
  prepareMs: 'prepare_ms',
  agentMs: 'agent_ms',
  verifyMs: 'verify_ms',
  totalMs: 'total_ms',
  f2pPassed: 'f2p_passed',
  f2pTotal: 'f2p_total',
  p2pPassed: 'p2p_passed',
  p2pTotal: 'p2p_total',
  heldOutPassed: 'held_out_passed',
  heldOutTotal: 'held_out_total',
  filesChanged: 'files_changed',
  linesAdded: 'lines_added',
  linesDeleted: 'lines_deleted',
  stopReason: 'stop_reason',
  turns: 'turns',
  toolCalls: 'tool_calls',
  repoKey: 'repo_key',
  category: 'category',
  difficulty: 'difficulty',
  schemaVersion: 'schema_version',
} as const;

/** Named parameters for one attempts row; null where the attempt has no such fact. */
export type AttemptColumns = Record<keyof typeof ATTEMPT_COLUMN_OF, string | number | null>;

/** Held-out runs are one set of tests, whichever group the verifier filed them under. */
function heldOutCounts(heldOut: TestRunEvidence | undefined): { passed: number | null; total: number | null } {
  if (!heldOut) return { passed: null, total: null };
  return {
    passed: heldOut.failToPass.passed + heldOut.passToPass.passed,
    total: heldOut.failToPass.total + heldOut.passToPass.total,
  };
}

/** Phase timings can be fractional (performance.now); the columns keep whole milliseconds. */
function ms(value: number): number {
  return Math.round(value);
}

export function attemptColumns(runId: string, a: AttemptResult, extra: AttemptExtra = {}): AttemptColumns {
  const heldOut = heldOutCounts(a.heldOut);
  return {
    attemptId: a.attemptId,
    runId,
    taskId: a.taskId,
    taskVersion: a.taskVersion,
    agent: a.agent,
    trial: a.trial,
    planIndex: a.index,
    verdict: a.verdict,
    cause: a.cause,
    message: a.message,
    score: a.score ?? null,
    sandbox: a.sandbox,
    startedAt: toStoredTimestamp(a.startedAt, 'startedAt'),
    finishedAt: toStoredTimestamp(a.finishedAt, 'finishedAt'),
    prepareMs: ms(a.timings.prepareMs),
    agentMs: ms(a.timings.agentMs),
    verifyMs: ms(a.timings.verifyMs),
    totalMs: ms(a.timings.totalMs),
    f2pPassed: a.tests?.failToPass.passed ?? null,
    f2pTotal: a.tests?.failToPass.total ?? null,
    p2pPassed: a.tests?.passToPass.passed ?? null,
    p2pTotal: a.tests?.passToPass.total ?? null,
    heldOutPassed: heldOut.passed,
    heldOutTotal: heldOut.total,
    filesChanged: a.diff?.filesChanged ?? null,
    linesAdded: a.diff?.added ?? null,
    linesDeleted: a.diff?.deleted ?? null,
    stopReason: a.agentResult?.stopReason ?? null,
    turns: a.agentResult?.turns ?? null,
    toolCalls: a.agentResult?.toolCalls ?? null,
    repoKey: extra.repoKey ?? null,
    category: extra.category ?? null,
    difficulty: extra.difficulty ?? null,
    schemaVersion: a.schemaVersion,
  };
}
