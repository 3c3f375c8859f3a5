import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AmbiguousIdError, HistoryError, openHistory, type HistoryReader, type ResolvedId } from '../infra/store/index.js';
import { InputError } from '../core/errors.js';
import { shownStateDir } from './state-dir-option.js';

export function historyPath(stateDir: string): string {
  return join(stateDir, 'history.db');
}

/** The history, read-only; undefined when no run has been recorded in this state directory yet. */
export function openHistoryReader(stateDir: string, cwd?: string): HistoryReader | undefined {
  const path = historyPath(stateDir);
  if (existsSync(stateDir) && !statSync(stateDir).isDirectory()) {
    throw new InputError(
      `--out ${cwd === undefined ? stateDir : shownStateDir(stateDir, cwd)}: is a file, expected Crucible's state directory (fix: pass the directory your runs used, e.g. --out .crucible)`,
    );
  }
  if (!existsSync(path)) return undefined;
  return asInputError(() => openHistory(path, { readonly: true }));
}

export function requireHistory(stateDir: string, cwd?: string): HistoryReader {
  const reader = openHistoryReader(stateDir, cwd);
  if (reader === undefined) {
    throw new InputError(`no history at ${historyPath(stateDir)} (fix: run \`crucible run\` first, or pass --out with the state directory your runs used)`);
  }
  return reader;
}

/** Resolves a run or attempt id prefix; unknown and ambiguous prefixes are input errors. */
export function resolveIdOrFail(reader: HistoryReader, prefix: string, what = 'run or attempt'): ResolvedId {
  const resolved = asInputError(() => reader.resolveId(prefix));
  if (resolved === undefined) {
    throw new InputError(
      `${prefix}: no ${what} with this id or prefix in ${reader.path} (fix: \`crucible history --runs\` lists runs, \`crucible history\` attempts)`,
    );
  }
  return resolved;
}

export function resolveRunId(reader: HistoryReader, prefix: string, flag = 'run'): string {
  const resolved = resolveIdOrFail(reader, prefix, 'run');
  if (resolved.kind !== 'run') throw new InputError(`${flag} ${prefix}: is attempt ${resolved.attemptId}, not a run (fix: use its run id ${resolved.runId})`);
  return resolved.runId;
}

/** What to do about a history.db that cannot be read; the run directories hold every attempt's files. */
export const HISTORY_FIX = 'restore history.db from a backup, or move it aside to start a new history; runs/ is not touched';

/** Store errors caused by what the user typed (a bad --since, an ambiguous prefix) become one-line input errors. */
export function asInputError<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof AmbiguousIdError) throw new InputError(`${error.message} (fix: give more of the id)`);
    if (error instanceof HistoryError) throw new InputError(`${error.message} (fix: ${historyErrorFix(error.message)})`);
    // A truncated or overwritten file opens, then fails on the first page it reads.
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') {
      throw new InputError(`the history database is damaged: ${(error as Error).message} (fix: ${HISTORY_FIX})`);
    }
    throw error;
  }
}

function historyErrorFix(message: string): string {
  if (/^since /.test(message)) return 'e.g. --since 2026-01-31, --since 24h or --since 7d';
  if (/cursor|limit|offset/.test(message)) return 'start again without it';
  return HISTORY_FIX;
}
