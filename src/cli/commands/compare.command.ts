import { Command } from 'commander';
import { jsonOption, stateDirOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible compare`: its options, arguments and help; the action is imported only when it runs. */
export function defineCompare(io: CliIo): Command {
  return new Command('compare')
    .description('Compare two runs: per (agent, task) cell deltas, regressions, and a paired verdict per agent.')
    .argument('<run-a>', 'the baseline run (id or unique prefix)')
    .argument('<run-b>', 'the run to compare with it')
    .addOption(jsonOption('print the comparison as JSON'))
    .addOption(stateDirOption("Crucible's state directory"))
    .addHelpText(
      'after',
      `
  Deltas are B − A. A cell is worse when its pass rate fell; one cell is noise-prone, so the verdict
  comes from a paired sign-flip test over the tasks both runs scored ('A better', 'B better' or
  'not separated').

  Example:
    crucible compare 20261130-0917 20261201-1002`,
    )
    .action(async (a: string, b: string, opts) => (await import('./compare.js')).compareCommand(a, b, opts, io));
}
