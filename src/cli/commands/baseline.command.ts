import { Command } from 'commander';
import { jsonOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible baseline`: its options, arguments and help; the action is imported only when it runs. */
export function defineBaseline(io: CliIo): Command {
  return new Command('baseline')
    .description('Save a run as a baseline file to commit (and gate against later), or show one.')
    .addCommand(
      new Command('save')
        .description("Write a run's outcomes per (task, task version, agent) as deterministic JSON, meant to be committed.")
        .argument('<run-id>', 'run id or unique prefix (see `crucible history --runs`)')
        .option('--out <file>', 'the baseline file to write', 'baseline.json')
        .option('--state-dir <dir>', "Crucible's state directory the run is in", '.crucible')
        .addHelpText(
          'after',
          `
  The file has sorted keys, paths relative to itself and one timestamp (createdAt), so saving the
  same run twice differs only there. Its format: schema/baseline.schema.json.

  Example:
    crucible baseline save 20261130-0917 --out baselines/main.json`,
        )
        .action(async (runId: string, opts) => (await import('./baseline.js')).baselineSaveCommand(runId, opts, io)),
    )
    .addCommand(
      new Command('show')
        .description('Show what a baseline file holds: agents, tasks and versions, outcomes.')
        .argument('<file>', 'a baseline file')
        .addOption(jsonOption('print the file as checked JSON'))
        .action(async (file: string, opts) => (await import('./baseline.js')).baselineShowCommand(file, opts, io)),
    );
}
