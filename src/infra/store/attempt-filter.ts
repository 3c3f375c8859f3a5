import type { AttemptFilter } from './queries.js';
import { parseSince } from './time.js';

export type SqlParams = Record<string, string | number>;

export interface SqlWhere {
  /** `WHERE …`, or empty when nothing filters. */
  sql: string;
  params: SqlParams;
}

export function whereOf(conditions: string[], params: SqlParams): SqlWhere {
  return { sql: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

/** Conditions on the attempts table aliased `a`; each one has an index that leads with it. */
export function attemptConditions(filter: AttemptFilter): { conditions: string[]; params: SqlParams } {
  const conditions: string[] = [];
  const params: SqlParams = {};
  if (filter.runId !== undefined) {
    conditions.push('a.run_id = @runId');
    params.runId = filter.runId;
  }
  if (filter.agent !== undefined) {
    conditions.push('a.agent = @agent');
    params.agent = filter.agent;
  }
  if (filter.taskId !== undefined) {
    conditions.push('a.task_id = @taskId');
    params.taskId = filter.taskId;
  }
  if (filter.verdict !== undefined) {
    conditions.push('a.verdict = @verdict');
    params.verdict = filter.verdict;
  }
  if (filter.cause !== undefined) {
    conditions.push('a.cause = @cause');
    params.cause = filter.cause;
  }
  if (filter.since !== undefined) {
    conditions.push('a.finished_at >= @since');
    params.since = parseSince(filter.since);
  }
  return { conditions, params };
}
