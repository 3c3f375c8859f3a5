import { relative } from 'node:path';
import { runValidation, type RunOutcome, type ValidationRunOptions } from '../engine/index.js';
import { inSession, type RunSession, type SessionOptions } from '../engine/index.js';
import type { AttemptResult } from '../core/types/index.js';
import { withFlagNames } from './option-flags.js';
import type { CliIo } from './io.js';
import { createProgress, type Progress } from './progress.js';

/**
 * A long command's session as the CLI shows it: the library's run session on io's signals (first
 * Ctrl-C stops starting work, the second kills it) and the progress view on io's stderr. Both are
 * closed however the work ends, so an in-process run leaves no listener or timer behind.
 */
export async function withRunSession<T>(
  io: CliIo,
  options: { quiet?: boolean } & SessionOptions,
  work: (session: RunSession, progress: Progress) => Promise<T>,
): Promise<T> {
  const progress = createProgress({ stream: io.stderr, quiet: options.quiet, env: io.env });
  try {
    return await inSession(io.signals, (session) => work(session, progress), options);
  } catch (error) {
    // The error is the command's one line; the start-up lines held before it would only bury it.
    progress.discard();
    throw error;
  } finally {
    progress.close();
  }
}

/**
 * The library's validation run (engine/validation-run.ts) as `validate`, `validate --adversarial`
 * and `audit` run it: in a run session, with the progress view, errors named by flag.
 */
export async function runValidationIn(
  io: CliIo,
  v: Omit<ValidationRunOptions, 'session' | 'observer' | 'taskSetFile'>,
): Promise<{ outcome: RunOutcome; results: AttemptResult[] }> {
  return withRunSession(io, {}, (session, progress) =>
    withFlagNames(() => runValidation({ ...v, taskSetFile: relative(io.cwd, v.taskSet.file) || v.taskSet.file, session, observer: progress })),
  );
}
