/**
 * A failed setup command, as the user reads it: one line for summaries (the command, how it
 * ended, and the line that best says why: npm's `npm error code E…`, a `fatal:`, a traceback's
 * error, not npm's closing note about its log), and an excerpt of its output that shows the reason
 * (head, tail, the error lines and every `npm error` line, each cut marked) for the attempt's
 * record, a file beside it and `crucible show`. Used by a task's setup and by `crucible ci`'s.
 */
import { failureExcerpt, failureLine } from '../../core/format/index.js';
import type { ExecResult } from '../../infra/sandbox/index.js';

/** The file, in the attempt (or preflight, or ci report) directory, that holds a failed setup command's excerpt. */
export const SETUP_OUTPUT_FILE = 'setup-output.txt';

export interface SetupFailure {
  /** One line: `setup command \`…\` failed (exit 1): npm error code ETARGET`. */
  message: string;
  /** The output cut to what shows the reason (format/output-cut.ts's failureExcerpt). */
  excerpt: string;
}

export function setupFailure(command: string, result: ExecResult, timeoutMs: number): SetupFailure {
  const why = result.timedOut ? `timed out after ${timeoutMs} ms` : `exit ${result.exitCode ?? result.signal}`;
  // npm and most tools write the reason on stderr; stdout's progress comes first in the excerpt only when stderr is empty.
  const output = [result.stderr.trimEnd(), result.stdout.trimEnd()].filter((s) => s !== '').join('\n');
  const reason = failureLine(output);
  return { message: `setup command \`${command}\` failed (${why})${reason ? `: ${reason}` : ''}`, excerpt: failureExcerpt(output) };
}

/** The text of SETUP_OUTPUT_FILE: what ran, how it ended, then the excerpt. */
export function setupOutputText(failure: SetupFailure): string {
  return `${failure.message}\n\n${failure.excerpt}\n`;
}
