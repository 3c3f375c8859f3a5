import { Command } from 'commander';
import { sandboxOption, stateDirOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible init`: its options, arguments and help; the action is imported only when it runs. */
export function defineInit(io: CliIo): Command {
  return new Command('init')
    .description('Start on your own repository: detect its test runner, write crucible.tasks.yaml and crucible.ci.yaml, list its test ids.')
    .argument('[dir]', 'the git repository (default: the current directory)')
    .option('--test-command <cmd>', 'the test command, instead of the detected one (JUnit to $CRUCIBLE_JUNIT, or TAP, go or libtest JSON on stdout)')
    .option('--no-tests', 'write the files without running the tests')
    .addOption(stateDirOption("Crucible's state directory (caches; the test run's scratch copy is removed)"))
    .addOption(sandboxOption('where setup and the tests run (default: bwrap on Linux)'))
    .addHelpText(
      'after',
      `
  The task starts from the repository's HEAD. An uncommitted change to files that are not tests
  becomes its oracle patch (crucible.oracle.patch); the tests then run on both sides, and those it
  makes pass are written into fail_to_pass. The report format is read from the project (tape,
  node-tap, mocha, ava: TAP; node --test, vitest, jest, pytest: JUnit; go, cargo: JSON) and
  confirmed by the run's own output. Existing files are never overwritten.

  Exit codes: 0 written and listed, 2 bad input (a file already there, no test runner, a run that
  gives no report: one line saying what its output is and the line to add), 130 interrupted.

  Examples:
    crucible init
    crucible init ../my-repo --test-command 'npx vitest run --reporter=junit --outputFile="$CRUCIBLE_JUNIT"'`,
    )
    .action(async (dir: string | undefined, opts) => (await import('./init.js')).initCommand(dir, opts, io));
}
