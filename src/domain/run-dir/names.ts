import { join, resolve } from 'node:path';
import { REPORT_FILES } from '../../core/types/index.js';

/*
 * Every name inside a run directory and an attempt directory. The layout is a stored format: runs
 * written by earlier versions are read by `show`, `report`, `resume` and `trace verify`, so a name
 * here changes only with a migration.
 */

/** A run directory's own files and folders. */
export const RUN_FILES = {
  plan: 'plan.json',
  summary: 'summary.json',
  checkpoint: 'checkpoint.jsonl',
  manifest: 'manifest.json',
  lock: 'run.lock',
  /** One folder per attempt, named by attempt id. */
  attempts: 'attempts',
  /** The preflight's shared baselines, scratch until the run ends (engine/shared-baseline.ts). */
  preflight: 'preflight',
  /** The task set's strength the run is shown beside, copied from the state directory after the run (features/strength). */
  strength: 'strength.json',
} as const;

/** The reports written next to a run, by reporter (report/reporters.ts); derived from the run, so outside its manifest. */
export const RUN_REPORT_FILES = REPORT_FILES;

/** The copies of JUnit reports an attempt directory holds: baseline run, the verify run, held-out tests. */
export const ATTEMPT_JUNIT_FILES = {
  baseline: 'baseline.junit.xml',
  baselineHeldOut: 'baseline-held-out.junit.xml',
  tests: 'tests.junit.xml',
  heldOut: 'held-out.junit.xml',
} as const;

/** An attempt directory's evidence files (what stays after its scratch trees are removed). */
export const ATTEMPT_FILES = {
  /** The full attempt record. */
  record: 'attempt.json',
  manifest: 'manifest.json',
  trace: 'trace.jsonl',
  commands: 'commands.jsonl',
  trajectory: 'trajectory.jsonl',
  diff: 'diff.patch',
  incident: 'incident.json',
  setupOutput: 'setup-output.txt',
  ...ATTEMPT_JUNIT_FILES,
} as const;

export type RunFileName = keyof typeof RUN_FILES;
export type AttemptFileName = keyof typeof ATTEMPT_FILES;

/** Runs of `crucible run` live in `runs/`, runs of `crucible validate` in `validate/`. */
export type RunKind = 'run' | 'validate';

/** The state directory's folder for runs of a kind, as a name (the server confines paths by it). */
export function runFolderOf(kind: RunKind | undefined): string {
  return kind === 'validate' ? 'validate' : 'runs';
}

/** Where runs of a kind live under the state directory. */
export function runsDirOf(stateDir: string, kind: RunKind = 'run'): string {
  return join(resolve(stateDir), runFolderOf(kind));
}

export function runsDir(stateDir: string): string {
  return runsDirOf(stateDir, 'run');
}

export function runFile(runDir: string, name: RunFileName): string {
  return join(runDir, RUN_FILES[name]);
}

export function attemptsDir(runDir: string): string {
  return join(runDir, RUN_FILES.attempts);
}

export function attemptDir(runDir: string, attemptId: string): string {
  return join(runDir, RUN_FILES.attempts, attemptId);
}

/** A file of an attempt directory. */
export function attemptFile(dir: string, name: AttemptFileName): string {
  return join(dir, ATTEMPT_FILES[name]);
}

/** `attempts/<id>/attempt.json` of a run. */
export function attemptRecordFile(runDir: string, attemptId: string): string {
  return attemptFile(attemptDir(runDir, attemptId), 'record');
}
