import type { Cause, StopReason, Verdict } from '../../core/types/index.js';
import type { AttemptRow, TestCount } from './rows.js';

/** Columns and join behind every AttemptRow; callers add WHERE / ORDER BY. Table aliases: a, u. */
export const ATTEMPT_ROW_SELECT = `
  SELECT a.attempt_id, a.run_id, a.task_id, a.task_version, a.agent, a.trial, a.plan_index,
    a.verdict, a.cause, a.message, a.score, a.sandbox, a.started_at, a.finished_at,
    a.prepare_ms, a.agent_ms, a.verify_ms, a.total_ms,
    a.f2p_passed, a.f2p_total, a.p2p_passed, a.p2p_total, a.held_out_passed, a.held_out_total,
    a.files_changed, a.lines_added, a.lines_deleted, a.stop_reason, a.turns, a.tool_calls,
    a.repo_key, a.category, a.difficulty,
    u.attempt_id IS NOT NULL AS has_usage, u.input_tokens, u.output_tokens, u.cache_read_tokens,
    u.cache_write_tokens, u.reasoning_tokens, u.requests, u.cost_usd,
    (SELECT count(*) FROM checks c WHERE c.attempt_id = a.attempt_id AND c.passed = 0) AS failed_checks
  FROM attempts a LEFT JOIN usage u ON u.attempt_id = a.attempt_id`;

export interface RawAttemptRow {
  attempt_id: string;
  run_id: string;
  task_id: string;
  task_version: string;
  agent: string;
  trial: number;
  plan_index: number;
  verdict: string;
  cause: string;
  message: string;
  score: number | null;
  sandbox: string;
  started_at: string;
  finished_at: string;
  prepare_ms: number;
  agent_ms: number;
  verify_ms: number;
  total_ms: number;
  f2p_passed: number | null;
  f2p_total: number | null;
  p2p_passed: number | null;
  p2p_total: number | null;
  held_out_passed: number | null;
  held_out_total: number | null;
  files_changed: number | null;
  lines_added: number | null;
  lines_deleted: number | null;
  stop_reason: string | null;
  turns: number | null;
  tool_calls: number | null;
  repo_key: string | null;
  category: string | null;
  difficulty: string | null;
  has_usage: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
  requests: number | null;
  cost_usd: number | null;
  failed_checks: number;
}

function testCount(passed: number | null, total: number | null): TestCount | null {
  return passed === null || total === null ? null : { passed, total };
}

/* The enum-typed columns are only ever written from typed AttemptResults, so the casts hold. */
export function toAttemptRow(r: RawAttemptRow): AttemptRow {
  return {
    attemptId: r.attempt_id,
    runId: r.run_id,
    taskId: r.task_id,
    taskVersion: r.task_version,
    agent: r.agent,
    trial: r.trial,
    planIndex: r.plan_index,
    verdict: r.verdict as Verdict,
    cause: r.cause as Cause,
    message: r.message,
    score: r.score,
    sandbox: r.sandbox,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    prepareMs: r.prepare_ms,
    agentMs: r.agent_ms,
    verifyMs: r.verify_ms,
    totalMs: r.total_ms,
    failToPass: testCount(r.f2p_passed, r.f2p_total),
    passToPass: testCount(r.p2p_passed, r.p2p_total),
    heldOut: testCount(r.held_out_passed, r.held_out_total),
    diff: r.files_changed === null ? null : { filesChanged: r.files_changed, added: r.lines_added ?? 0, deleted: r.lines_deleted ?? 0 },
    stopReason: r.stop_reason as StopReason | null,
    turns: r.turns,
    toolCalls: r.tool_calls,
    repoKey: r.repo_key,
    category: r.category,
    difficulty: r.difficulty,
    failedCheckCount: r.failed_checks,
    usage: r.has_usage
      ? {
          inputTokens: r.input_tokens ?? 0,
          outputTokens: r.output_tokens ?? 0,
          cacheReadTokens: r.cache_read_tokens ?? 0,
          cacheWriteTokens: r.cache_write_tokens ?? 0,
          reasoningTokens: r.reasoning_tokens ?? 0,
          requests: r.requests ?? 0,
          costUsd: r.cost_usd,
        }
      : null,
  };
}
