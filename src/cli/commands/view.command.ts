import { Command } from 'commander';
import { stateDirOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible view`: its options, arguments and help; the action is imported only when it runs. */
export function defineView(io: CliIo): Command {
  return new Command('view')
    .description('Serve the dashboard: runs, attempts (diff, trajectory, tests), comparisons and trends, from the history.')
    .option('-p, --port <n>', 'port to listen on (0: any free port)', '4317')
    .option('--host <address>', 'address to bind; anything but loopback exposes your runs to the network', '127.0.0.1')
    .addOption(stateDirOption("Crucible's state directory (where history.db and runs/ are)"))
    .addHelpText(
      'after',
      `
  The server is read-only and serves nothing outside the state directory.

  Example:
    crucible view --port 8080`,
    )
    .action(async (opts) => (await import('./view.js')).viewCommand(opts, io));
}
