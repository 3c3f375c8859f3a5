import type { Db } from './connection.js';
import { AmbiguousIdError, HistoryError } from './errors.js';
import type { ResolvedId } from './rows.js';

export interface IdResolver {
  resolveId(prefix: string): ResolvedId | undefined;
}

/** Enough to show the user what they might have meant without listing the whole history. */
const MAX_CANDIDATES = 10;

/*
 * Text compares as UTF-8 bytes, and no valid UTF-8 sequence sorts above U+10FFFF's, so
 * [prefix, prefix + U+10FFFF) is every id starting with prefix: a range the primary key serves.
 */
const ABOVE_ANY_CHAR = '\u{10FFFF}';

export function createIdResolver(db: Db): IdResolver {
  const exactRun = db.prepare<[string], string>('SELECT run_id FROM runs WHERE run_id = ?').pluck();
  const exactAttempt = db.prepare<[string], { attempt_id: string; run_id: string }>('SELECT attempt_id, run_id FROM attempts WHERE attempt_id = ?');
  const runsByPrefix = db.prepare<[string, string, number], string>('SELECT run_id FROM runs WHERE run_id >= ? AND run_id < ? ORDER BY run_id LIMIT ?').pluck();
  const attemptsByPrefix = db.prepare<[string, string, number], { attempt_id: string; run_id: string }>(
    'SELECT attempt_id, run_id FROM attempts WHERE attempt_id >= ? AND attempt_id < ? ORDER BY attempt_id LIMIT ?',
  );

  return {
    /** A full id wins over longer ids it prefixes (run `r1` beside `r10`); a run wins over an attempt. */
    resolveId(prefix) {
      if (prefix.length === 0) throw new HistoryError('an id prefix cannot be empty');
      const run = exactRun.get(prefix);
      if (run !== undefined) return { kind: 'run', runId: run };
      const attempt = exactAttempt.get(prefix);
      if (attempt !== undefined) return { kind: 'attempt', attemptId: attempt.attempt_id, runId: attempt.run_id };

      const upper = prefix + ABOVE_ANY_CHAR;
      const runs = runsByPrefix.all(prefix, upper, MAX_CANDIDATES + 1);
      const attempts = attemptsByPrefix.all(prefix, upper, MAX_CANDIDATES + 1);
      const candidates = [...runs, ...attempts.map((a) => a.attempt_id)];
      if (candidates.length > 1) throw new AmbiguousIdError(prefix, candidates.slice(0, MAX_CANDIDATES), candidates.length > MAX_CANDIDATES);
      const [onlyRun] = runs;
      if (onlyRun !== undefined) return { kind: 'run', runId: onlyRun };
      const [onlyAttempt] = attempts;
      if (onlyAttempt !== undefined) return { kind: 'attempt', attemptId: onlyAttempt.attempt_id, runId: onlyAttempt.run_id };
      return undefined;
    },
  };
}
