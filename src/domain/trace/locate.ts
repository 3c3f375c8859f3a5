import { existsSync, lstatSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { ATTEMPT_FILES, attemptFile, attemptsDir, findRunDir, listAttemptDirs, RUN_FILES } from '../run-dir/index.js';
import { InputError } from '../../core/errors.js';

export interface TraceTarget {
  kind: 'attempt' | 'run';
  /** The attempt directories, in name order. */
  attemptDirs: string[];
}

function isDir(path: string): boolean {
  return existsSync(path) && lstatSync(path).isDirectory();
}

/**
 * What a trace command was pointed at: an attempt directory (one with trace.jsonl or attempt.json),
 * a run directory (one with attempts/), or `<run-id>[/<attempt-id>]` in the state directory.
 */
export async function locateTrace(target: string, stateDir: string, allowRun: boolean): Promise<TraceTarget> {
  const asPath = resolve(target);
  if (isDir(asPath)) {
    if (existsSync(attemptFile(asPath, 'trace')) || existsSync(attemptFile(asPath, 'record'))) return { kind: 'attempt', attemptDirs: [asPath] };
    if (isDir(attemptsDir(asPath))) return runTarget(asPath, allowRun, target);
    throw new InputError(
      `${target}: neither an attempt directory (no ${ATTEMPT_FILES.trace}) nor a run directory (no ${RUN_FILES.attempts}/) (fix: pass <run-dir>/attempts/<attempt-id>)`,
    );
  }
  const [runPart, attemptPart, ...rest] = target.split('/');
  if (!runPart || rest.length > 0 || target.startsWith('/')) {
    throw new InputError(`${target}: no such directory, and not <run-id>/<attempt-id> (fix: pass an attempt directory or a run id)`);
  }
  const { runDir } = await findRunDir(stateDir, runPart);
  if (attemptPart === undefined || attemptPart === '') return runTarget(runDir, allowRun, target);
  if (attemptPart === '.' || attemptPart === '..') throw new InputError(`${target}: not an attempt id`);
  // Attempt directories carry a suffix after the plan id (`js-slugify.oracle.0.78a8db7a54`): a unique prefix will do.
  const dirs = await listAttemptDirs(runDir);
  const exact = dirs.find((d) => basename(d) === attemptPart);
  const prefixed = dirs.filter((d) => basename(d).startsWith(`${attemptPart}`));
  const attemptDir = exact ?? (prefixed.length === 1 ? prefixed[0] : undefined);
  if (attemptDir === undefined) {
    const why = prefixed.length > 1 ? `matches ${prefixed.length} attempts` : `has no attempt ${attemptPart}`;
    throw new InputError(`${target}: run ${runPart} ${why} (fix: \`crucible show ${runPart}\` lists its attempts)`);
  }
  return { kind: 'attempt', attemptDirs: [attemptDir] };
}

async function runTarget(runDir: string, allowRun: boolean, target: string): Promise<TraceTarget> {
  const attemptDirs = await listAttemptDirs(runDir);
  if (!allowRun && attemptDirs.length !== 1) {
    throw new InputError(`${target}: is a run with ${attemptDirs.length} attempts; this command takes one attempt (fix: pass <run-id>/<attempt-id>)`);
  }
  if (attemptDirs.length === 0) throw new InputError(`${target}: the run has no attempts`);
  return { kind: allowRun ? 'run' : 'attempt', attemptDirs };
}
