import type { Db } from './connection.js';
import { HistoryError } from './errors.js';
import { withBusyRetry } from './retry.js';
import type { RunFinish, RunMeta } from './rows.js';
import { toStoredTimestamp } from './time.js';
import { STATS_HEAD_SQL } from './schema-v6.js';

export interface RunWriter {
  recordRun(meta: RunMeta): void;
  finishRun(runId: string, finish: RunFinish): void;
}

export function createRunWriter(db: Db): RunWriter {
  // The statistics head (schema v6) is what a run page reads: the stats without their cells.
  // A resumed run records itself again: it is running once more, so its earlier finish (time,
  // counts, statistics) no longer describes it until finishRun writes the new one. Attempts stay.
  const upsert = db.prepare(`
    INSERT INTO runs (run_id, kind, task_set, created_at, planned, agents, config_hash)
    VALUES (@runId, @kind, @taskSet, @createdAt, @planned, @agents, @configHash)
    ON CONFLICT (run_id) DO UPDATE SET
      kind = excluded.kind, task_set = excluded.task_set, created_at = excluded.created_at, planned = excluded.planned,
      agents = excluded.agents, config_hash = excluded.config_hash,
      finished_at = NULL, stopped_early = 0, counts = NULL, summary = NULL, stats_head = NULL`);
  const finish = db.prepare(`
    UPDATE runs SET finished_at = @finishedAt, executed = @executed, stopped_early = @stoppedEarly,
      counts = @counts, summary = @summary, stats_head = ${STATS_HEAD_SQL('@summary')}
    WHERE run_id = @runId`);

  return {
    recordRun(meta) {
      const params = {
        runId: meta.runId,
        kind: meta.kind ?? 'run',
        taskSet: meta.taskSet,
        createdAt: toStoredTimestamp(meta.createdAt, 'createdAt'),
        planned: meta.planned,
        agents: JSON.stringify(meta.agents),
        configHash: meta.configHash ?? null,
      };
      withBusyRetry(() => upsert.run(params));
    },
    finishRun(runId, result) {
      const params = {
        runId,
        finishedAt: toStoredTimestamp(result.finishedAt, 'finishedAt'),
        executed: result.executed,
        stoppedEarly: result.stoppedEarly ? 1 : 0,
        counts: JSON.stringify(result.counts),
        summary: result.stats === undefined ? null : JSON.stringify(result.stats),
      };
      const { changes } = withBusyRetry(() => finish.run(params));
      if (changes === 0) throw new HistoryError(`run ${runId} is not in the history; recordRun it first`);
    },
  };
}
