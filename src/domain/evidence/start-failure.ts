/**
 * Whether a test command or verifier started at all. Only a test that ran is evidence: a run whose
 * program could not be executed (its file or its `#!` interpreter missing, not executable) tells
 * nothing about the code under test, so it must never count as a failing test, and at the baseline
 * it is the task's error. The sandbox reports its own failed spawn out of band (`notStarted`, an
 * errno); a shell reports the same in band, as exit 127 (not found) or 126 (cannot execute), which
 * counts only when the run wrote nothing it was asked for: a test that ran and then exited 127
 * still wrote its report.
 */
import type { ExecResult } from '../../infra/sandbox/index.js';
import type { TestRunEvidence } from '../../core/types/index.js';

const IN_BAND = new Map([
  [127, 'exit 127: the command or the interpreter on its #! line was not found'],
  [126, 'exit 126: the command is not executable'],
]);

/** Why the run did not start, or undefined when it did. `wroteResult`: it left the report or reward it was asked for. */
export function startFailure(
  result: Pick<ExecResult, 'notStarted' | 'exitCode' | 'timedOut' | 'stdout' | 'stderr'>,
  wroteResult: boolean,
): TestRunEvidence['notStarted'] {
  const said = lastLine(result.stderr) ?? lastLine(result.stdout);
  const detail = said === undefined ? '' : `: ${said}`;
  if (result.notStarted !== undefined) return { reason: `the sandbox could not execute it (${result.notStarted})${detail}`, proven: true };
  if (wroteResult) return undefined;
  const inBand = result.exitCode === null ? undefined : IN_BAND.get(result.exitCode);
  if (inBand !== undefined) return { reason: `${inBand}${detail}`, proven: false };
  if (result.exitCode === null && !result.timedOut && said === undefined)
    return { reason: 'killed before it wrote anything (no output, no result)', proven: false };
  return undefined;
}

function lastLine(text: string): string | undefined {
  const line = text.trim().split('\n').pop()?.trim();
  return line === undefined || line === '' ? undefined : line.slice(0, 300);
}
