import { attemptFactsOf, type AttemptResult } from '../../core/types/index.js';
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

export function attemptColumns(runId: string, a: AttemptResult, extra: AttemptExtra = {}): AttemptColumns {
  const facts = attemptFactsOf(a);
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
    score: facts.score,
    sandbox: a.sandbox,
    startedAt: toStoredTimestamp(a.startedAt, 'startedAt'),
    finishedAt: toStoredTimestamp(a.finishedAt, 'finishedAt'),
    prepareMs: facts.prepareMs,
    agentMs: facts.agentMs,
    verifyMs: facts.verifyMs,
    totalMs: facts.totalMs,
    f2pPassed: facts.failToPass?.passed ?? null,
    f2pTotal: facts.failToPass?.total ?? null,
    p2pPassed: facts.passToPass?.passed ?? null,
    p2pTotal: facts.passToPass?.total ?? null,
    heldOutPassed: facts.heldOut?.passed ?? null,
    heldOutTotal: facts.heldOut?.total ?? null,
    filesChanged: facts.diff?.filesChanged ?? null,
    linesAdded: facts.diff?.added ?? null,
    linesDeleted: facts.diff?.deleted ?? null,
    stopReason: facts.stopReason,
    turns: facts.turns,
    toolCalls: facts.toolCalls,
    repoKey: extra.repoKey ?? null,
    category: extra.category ?? null,
    difficulty: extra.difficulty ?? null,
    schemaVersion: a.schemaVersion,
  };
}
