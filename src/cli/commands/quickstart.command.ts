import { Command } from 'commander';
import { stateDirOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible quickstart`: its options, arguments and help; the action is imported only when it runs. */
export function defineQuickstart(io: CliIo): Command {
  return new Command('quickstart')
    .description(
      'From any directory: copy the examples Crucible ships into ./crucible-quickstart and run them, the model replayed (no key, no network), in the safest sandbox here.',
    )
    .option('--dir <dir>', 'where the examples are copied (a second run uses what is there)', 'crucible-quickstart')
    .addOption(stateDirOption("Crucible's state directory (runs, caches, history)"))
    .action(async (opts) => (await import('./quickstart.js')).quickstartCommand(opts, io));
}
