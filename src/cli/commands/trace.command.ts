import { Command } from 'commander';
import { jsonOption, stateDirOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible trace verify|replay|metamorphic`: its options, arguments and help; the actions are imported only when they run. */
export function defineTrace(io: CliIo): Command {
  const command = new Command('trace')
    .description("Check, replay and stress an attempt's hash-chained trace (trace.jsonl): offline, no agent, test, container or network.")
    .addHelpText(
      'after',
      `
  Every attempt records trace.jsonl: a header committing to a chain of hashed events (commands with
  sanitized argv, changed files with blob ids, test outcomes, check results, the verdict). See
  docs/evidence.md#traces.

  Examples:
    crucible trace verify 20261130-0917
    crucible trace replay 20261130-0917
    crucible trace metamorphic 20261130-0917/js-slugify.oracle.0`,
    );
  command
    .command('verify')
    .description("Check every event hash, the chain and the header of an attempt's trace (or of every attempt of a run).")
    .argument('<target>', 'an attempt directory, a run directory, <run-id> or <run-id>/<attempt-id>')
    .addOption(stateDirOption("Crucible's state directory the run is in"))
    .addOption(jsonOption('print the result as JSON'))
    .addHelpText(
      'after',
      `
  Exit codes: 0 every trace verifies, 1 one does not (the first bad line is named: file:line),
  2 bad input (no such attempt or run, no trace file, a trace that is a symlink).`,
    )
    .action(async (target: string, opts) => (await import('./trace.js')).traceVerifyCommand(target, opts, io));
  command
    .command('replay')
    .description('Re-grade attempts from their traces with the registered checks and grade(), and compare with the recorded checks and verdict.')
    .argument('<target>', 'an attempt or run directory, <run-id> or <run-id>/<attempt-id>')
    .addOption(stateDirOption("Crucible's state directory the run is in"))
    .addOption(jsonOption('print every comparison as JSON'))
    .addHelpText(
      'after',
      `
  Runs no agent, no test, no container and no network: the evidence is the trace's. A trace that
  does not verify is a mismatch. Prints the match rate.

  Exit codes: 0 every attempt matches, 1 some check or verdict differs (or a trace fails), 2 bad input.`,
    )
    .action(async (target: string, opts) => (await import('./trace.js')).traceReplayCommand(target, opts, io));
  command
    .command('metamorphic')
    .description("Apply a catalogue of transformations to a copy of one attempt's trace and check the grader reacts as it must.")
    .argument('<attempt>', 'an attempt directory or <run-id>/<attempt-id>')
    .addOption(stateDirOption("Crucible's state directory the run is in"))
    .addOption(jsonOption('print the report as JSON'))
    .addHelpText(
      'after',
      `
  Transformations that must not change the verdict (reorder commands or changed files, rename an
  unrelated file), that must (touch a test file, add a forbidden path, drop a passing fail-to-pass
  test) and that must be rejected by verification (edit, drop, swap or cut events without
  re-hashing). Nothing is written; a transformation that does not apply is reported as skipped.

  Exit codes: 0 every applicable transformation behaved as expected, 1 one did not (or the trace
  does not verify or replay as recorded), 2 bad input.`,
    )
    .action(async (target: string, opts) => (await import('./trace.js')).traceMetamorphicCommand(target, opts, io));
  return command;
}
