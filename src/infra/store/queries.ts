import type { Cause, Verdict } from '../../core/types/index.js';

/* What callers may ask for. `since` takes a Date, an ISO timestamp or a duration (see time.ts). */

export type Since = string | Date;

/** Either `offset` or a `cursor` from the previous page; cursors stay cheap deep into history. */
export interface PageRequest {
  limit: number;
  offset?: number;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  /** Pass as `cursor` to get the next page; null on the last page. */
  nextCursor: string | null;
}

export interface RunFilter {
  /** Runs whose plan included this agent spec. */
  agent?: string;
  /** Runs created at or after. */
  since?: Since;
}

export interface AttemptFilter {
  runId?: string;
  agent?: string;
  taskId?: string;
  /** Attempts finished at or after. */
  since?: Since;
  verdict?: Verdict;
  cause?: Cause;
}

export interface TrendQuery {
  bucket: 'day' | 'run';
  /** The most recent buckets to return. */
  limit: number;
  agent?: string;
  taskId?: string;
  /** Attempts finished at or after (for run buckets too). */
  since?: Since;
  /** Split each agent's points by task as well. */
  perTask?: boolean;
}
