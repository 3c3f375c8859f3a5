import { Command } from 'commander';
import { agentsFileOption, collect, concurrencyOption, jsonOption, sandboxOption, stateDirOption, taskOption } from '../options.js';
import { datasetTaskSet, registryHelp } from '../dataset-argument.js';
import type { CliIo } from '../io.js';

/** `crucible validate`: its options, arguments and help; the action is imported only when it runs. */
export function defineValidate(io: CliIo): Command {
  return new Command('validate')
    .description('Prove each task can grade agents: nop must fail its fail-to-pass tests, oracle must pass, every time.')
    .argument('<taskset>', 'task-set YAML file, e.g. examples/tasks.yaml, or a dataset NAME@VERSION (docs/datasets.md)')
    .option('--registry <file|url>', registryHelp)
    .addOption(taskOption('only this task (repeatable)'))
    .option('-n, --runs <n>', 'oracle attempts per task; they must all pass (flaky tasks are reported)', '3')
    .addOption(concurrencyOption('attempts in flight at once (default: min(cores, 4))'))
    .addOption(agentsFileOption("also check this file of agent profiles (the task set's agents: section is always checked)"))
    .addOption(stateDirOption("Crucible's state directory (validation attempts go to <out>/validate)"))
    .addOption(sandboxOption('where agents and tests run: bwrap (default on Linux), local, or docker (containers; tasks with an environment need it)'))
    .addOption(jsonOption('print the validity of each task as JSON on stdout'))
    .option('--require-oracle', 'fail a task that has no oracle patch (by default it passes as unproven: nothing wrong, nothing proven)')
    .option('--adversarial', 'run the attack catalogue on each task instead: which cheats get through (docs/redteam.md)')
    .option('--attack <name>', 'with --adversarial: only this attack (repeatable; resource attacks run only when named)', collect)
    .option(
      '--strength',
      "also measure each task's strength: mutants of the oracle's fix graded as attempts, surviving ones saved as patches; and the flake rate of repeated runs (docs/strength.md)",
    )
    .option('--max-mutants <n>', 'with --strength: at most this many mutants per task, sampled with --seed (default 20)')
    .option('--seed <n>', 'with --strength: the seed that samples the mutants (default 1)')
    .option('--min-strength <f>', 'with --strength: a task whose strength is below this fraction fails validation, e.g. 0.8')
    .addHelpText(
      'after',
      '\nExit codes: 0 every task valid or unproven (no oracle patch, nothing else wrong; --require-oracle makes that 1) (--adversarial: no attack got through), 1 some task invalid or flaky (--adversarial: an attack passed, an attack ended in a harness error, or an honest control failed), 2 bad input or a broken task (a fail-to-pass id the tests do not report, an oracle patch that does not apply, a repo that cannot be fetched), 75 disk full.\n\nExamples:\n  crucible validate examples/tasks.yaml --runs 3\n  crucible validate examples/tasks.yaml --strength --max-mutants 10\n  crucible validate examples/tasks.yaml --adversarial --task py-median',
    )
    .action(async (taskset: string, opts) => (await import('./validate.js')).validateCommand(await datasetTaskSet(taskset, opts, io), opts, io));
}
