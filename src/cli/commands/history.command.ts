import { Command } from 'commander';
import { jsonOption, stateDirOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible history`: its options, arguments and help; the action is imported only when it runs. */
export function defineHistory(io: CliIo): Command {
  return new Command('history')
    .description('List recorded attempts (or runs, or ci and gate results) from the history database, newest first.')
    .option('-a, --agent <spec>', 'only this agent')
    .option('-t, --task <id>', 'only this task')
    .option('-r, --run <run-id>', 'only this run (id or unique prefix), in plan order')
    .option('--since <when>', 'only since a date or a duration back: 2026-01-31, 24h, 7d, 2w')
    .option('-l, --limit <n>', 'at most this many rows', '50')
    .option('--runs', 'list runs instead of attempts')
    .option('--evaluations', 'list `crucible ci` and `crucible gate` results instead of attempts')
    .option('--kind <kind>', 'only ci or only gate results (implies --evaluations)')
    .addOption(jsonOption('print JSON'))
    .option('--csv', 'print CSV')
    .addOption(stateDirOption("Crucible's state directory (where history.db is)"))
    .addHelpText(
      'after',
      `
  Examples:
    crucible history --agent oracle --since 7d
    crucible history --runs --limit 10
    crucible history --kind gate --json
    crucible history --run 20261130-0917 --csv > attempts.csv`,
    )
    .action(async (opts) => (await import('./history.js')).historyCommand(opts, io));
}
