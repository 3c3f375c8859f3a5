import pc from 'picocolors';
import { EXIT_DISK_FULL, InputError } from '../core/errors.js';
import { environmentMessage } from './environment-error.js';
import type { CliIo } from './io.js';

/**
 * Every exit code the CLI gives, in one table (the commands' `--help` says which of them each one
 * uses). Only the program's run turns them into a process's exit status.
 */
export const EXIT = {
  /** The command did what was asked and everything it judged passed. */
  ok: 0,
  /** A verdict or a gate failed (an attempt, a task's validity, a trace, a check), or Crucible hit a bug. */
  failed: 1,
  /** Bad input: a flag, a file, a broken task, an unusable state directory, a missing machine service. */
  badInput: 2,
  /**
   * `crucible ci` only: no verdict on the change (ERROR), because the test command gave no usable
   * report at head nor at base; the harness's or the configuration's fault, never the change's FAIL.
   */
  error: 3,
  /** The state directory's disk is full (EX_TEMPFAIL): the run is kept and resumes once there is space. */
  diskFull: EXIT_DISK_FULL,
  /** Stopped by Ctrl-C or SIGTERM; whatever finished is kept. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * Raised by a command to end with a code other than 0, after it printed what it had to say. The
 * program catches it and returns its code; no command calls process.exit.
 */
export class ExitError extends Error {
  constructor(readonly exitCode: ExitCode) {
    super(`exit ${exitCode}`);
    this.name = 'ExitError';
  }
}

/** Ends the command with `code`: returns for EXIT.ok, raises ExitError for any other. */
export function exitWith(code: ExitCode): void {
  if (code !== EXIT.ok) throw new ExitError(code);
}

/** How a run-like command ends: interrupted, then broken tasks (bad input), then its verdict. */
export function runExitCode(end: { interrupted: boolean; taskErrors: number; passed: boolean }): ExitCode {
  if (end.interrupted) return EXIT.interrupted;
  if (end.taskErrors > 0) return EXIT.badInput;
  return end.passed ? EXIT.ok : EXIT.failed;
}

/** Prints an error the way a user should see it and returns the exit code. */
export function handleError(error: unknown, io: Pick<CliIo, 'stderr' | 'env'>): number {
  if (error instanceof ExitError) return error.exitCode;
  if (error instanceof InputError) {
    io.stderr.write(`${pc.red('error')} ${oneLine(error.message)}\n`);
    return error.exitCode;
  }
  // The session's signal aborted work before a run existed to record it (an agent's version check).
  if (error instanceof Error && error.name === 'AbortError') {
    io.stderr.write('interrupted\n');
    return EXIT.interrupted;
  }
  const environment = environmentMessage(error);
  if (environment !== undefined) {
    io.stderr.write(`${pc.red('error')} ${environment}\n`);
    return EXIT.badInput;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`${pc.red('crucible failed')} ${message}\n`);
  if (io.env.DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  else io.stderr.write('(set DEBUG=1 for a stack trace; this is a bug in Crucible, please report it)\n');
  return EXIT.failed;
}

/**
 * An input error is one line whatever its text holds: a file name may carry a newline, an escape
 * sequence or any other control character (an imported directory, a cassette, a test file), which
 * is shown escaped as in JSON, so it neither breaks the line nor drives the terminal.
 */
export function oneLine(message: string): string {
  return message.replace(
    // eslint-disable-next-line no-control-regex -- control characters are what this escapes
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (ch) => ESCAPES[ch] ?? `\\u${(ch.codePointAt(0) as number).toString(16).padStart(4, '0')}`,
  );
}

const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
