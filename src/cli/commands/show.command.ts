import { Command } from 'commander';
import { jsonOption, stateDirOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible show`: its options, arguments and help; the action is imported only when it runs. */
export function defineShow(io: CliIo): Command {
  return new Command('show')
    .description('Show a run (its attempts and statistics) or one attempt (verdict, checks, tests, diff, timings, trajectory), or a trajectory file (ATIF).')
    .argument('<id>', 'run id or attempt id, or a unique prefix of one; or a trajectory file (Harbor ATIF .json, or trajectory.jsonl)')
    .addOption(jsonOption('print the stored record as JSON'))
    .addOption(stateDirOption("Crucible's state directory"))
    .addHelpText(
      'after',
      `
  Examples:
    crucible show 20261130-0917
    crucible show js-slugify.oracle.0
    crucible show jobs/trial-1/agent/trajectory.json`,
    )
    .action(async (id: string, opts) => (await import('./show.js')).showCommand(id, opts, io));
}
