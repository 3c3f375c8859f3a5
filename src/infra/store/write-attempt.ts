import type { AttemptResult } from '../../core/types/index.js';
import { ATTEMPT_COLUMN_OF, attemptColumns } from './attempt-columns.js';
import type { Db } from './connection.js';
import { HistoryError } from './errors.js';
import { withBusyRetry } from './retry.js';
import type { AttemptEntry, AttemptExtra } from './rows.js';

export interface AttemptWriter {
  recordAttempt(runId: string, attempt: AttemptResult, extra?: AttemptExtra): void;
  recordAttempts(runId: string, entries: Iterable<AttemptEntry>): void;
  deleteAttempts(runId: string, attemptIds: readonly string[]): number;
}

function upsertAttemptSql(): string {
  const pairs = Object.entries(ATTEMPT_COLUMN_OF);
  const columns = pairs.map(([, column]) => column).join(', ');
  const values = pairs.map(([param]) => `@${param}`).join(', ');
  const updates = pairs
    .filter(([, column]) => column !== 'attempt_id')
    .map(([, column]) => `${column} = excluded.${column}`)
    .join(', ');
  return `INSERT INTO attempts (${columns}) VALUES (${values}) ON CONFLICT (attempt_id) DO UPDATE SET ${updates}`;
}

export function createAttemptWriter(db: Db): AttemptWriter {
  const runExists = db.prepare('SELECT 1 FROM runs WHERE run_id = ?').pluck();
  const upsertAttempt = db.prepare(upsertAttemptSql());
  const upsertDocument = db.prepare(
    'INSERT INTO attempt_documents (attempt_id, json) VALUES (?, ?) ON CONFLICT (attempt_id) DO UPDATE SET json = excluded.json',
  );
  // Checks and usage are replaced wholesale: a re-recorded attempt may have fewer checks than before.
  const deleteChecks = db.prepare('DELETE FROM checks WHERE attempt_id = ?');
  const insertCheck = db.prepare('INSERT INTO checks (attempt_id, position, check_id, passed, severity, message, evidence) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const deleteUsage = db.prepare('DELETE FROM usage WHERE attempt_id = ?');
  const insertUsage = db.prepare(`
    INSERT INTO usage (attempt_id, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
      reasoning_tokens, requests, cost_usd)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);

  function writeOne(runId: string, attempt: AttemptResult, extra: AttemptExtra | undefined): void {
    if (attempt.runId !== runId) {
      throw new HistoryError(`attempt ${attempt.attemptId} belongs to run ${attempt.runId}, not ${runId}`);
    }
    const id = attempt.attemptId;
    upsertAttempt.run(attemptColumns(runId, attempt, extra));
    upsertDocument.run(id, JSON.stringify(attempt));
    deleteChecks.run(id);
    attempt.checks.forEach((check, position) => {
      insertCheck.run(id, position, check.id, check.passed ? 1 : 0, check.severity, check.message, JSON.stringify(check.evidence));
    });
    deleteUsage.run(id);
    const usage = attempt.agentResult?.usage;
    if (usage) {
      insertUsage.run(
        id,
        usage.inputTokens,
        usage.outputTokens,
        usage.cacheReadTokens,
        usage.cacheWriteTokens,
        usage.reasoningTokens,
        usage.requests,
        usage.costUsd ?? null,
      );
    }
  }

  const deleteAttempt = db.prepare('DELETE FROM attempts WHERE run_id = ? AND attempt_id = ?');
  const deleteAll = db.transaction((runId: string, ids: readonly string[]) => ids.reduce((count, id) => count + deleteAttempt.run(runId, id).changes, 0));

  let iterationStarted = false;
  const writeAll = db.transaction((runId: string, entries: Iterable<AttemptEntry>) => {
    iterationStarted = true;
    if (runExists.get(runId) === undefined) {
      throw new HistoryError(`run ${runId} is not in the history; recordRun it before its attempts`);
    }
    for (const { attempt, extra } of entries) writeOne(runId, attempt, extra);
  });

  return {
    recordAttempt(runId, attempt, extra) {
      withBusyRetry(() => writeAll.immediate(runId, [{ attempt, extra }]));
    },
    recordAttempts(runId, entries) {
      // Busy errors come from BEGIN IMMEDIATE, before the body runs; once the body has pulled
      // entries from a one-shot iterator, a retry would silently skip them, so it must not happen.
      iterationStarted = false;
      const replayable = Array.isArray(entries);
      withBusyRetry(
        () => writeAll.immediate(runId, entries),
        () => replayable || !iterationStarted,
      );
    },
    deleteAttempts(runId, attemptIds) {
      // Checks, usage and the document go with the row (ON DELETE CASCADE).
      return withBusyRetry(() => deleteAll.immediate(runId, attemptIds));
    },
  };
}
