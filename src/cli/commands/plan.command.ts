import { Command } from 'commander';
import { jsonOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible plan`: its options, arguments and help; the action is imported only when it runs. */
export function definePlan(io: CliIo): Command {
  return new Command('plan')
    .description(
      'How many tasks and trials a fixed design needs to separate two agents by --detect, and what --adaptive is expected to spend instead (by simulation).',
    )
    .argument('<taskset>', 'task-set YAML file or suite, e.g. examples/tasks.yaml')
    .requiredOption('--detect <diff>', 'the difference in pass rate to detect, e.g. 5pp')
    .option('--power <p>', 'the wanted chance of separating them at that difference', '0.8')
    .option('--sims <n>', 'simulated runs per design evaluated', '200')
    .addOption(jsonOption('print the plan as JSON'))
    .action(async (taskset: string, opts) => (await import('./plan.js')).planCommand(taskset, opts, io));
}
