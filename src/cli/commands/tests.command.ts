import { Command } from 'commander';
import { jsonOption, sandboxOption, stateDirOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible tests`: its options, arguments and help; the action is imported only when it runs. */
export function defineTests(io: CliIo): Command {
  return new Command('tests')
    .description("List a task's test ids with their outcomes, exactly as fail_to_pass / pass_to_pass name them; --suggest proposes both lists.")
    .argument('<taskset>', 'task-set YAML file, e.g. examples/tasks.yaml, or a suite file')
    .option('-t, --task <id>', 'the task whose tests to run (may be left out when the set has one task)')
    .option('--at <side>', 'baseline (the repo after setup, default) or oracle (with the oracle patch applied)')
    .option(
      '--suggest',
      'run both sides and print fail_to_pass (fails at the baseline, passes with the oracle) and pass_to_pass (passes on both) as YAML; without an oracle, the baseline alone: what fails there, as candidates',
    )
    .option('--write', "with --suggest: write fail_to_pass and pass_to_pass into the task's file (comments and layout kept); needs an oracle")
    .addOption(stateDirOption("Crucible's state directory (caches; the scratch copy goes to <out>/tests/ and is removed)"))
    .addOption(sandboxOption('where setup and the tests run (default: bwrap on Linux; a task with an environment needs docker)'))
    .addOption(jsonOption('print the runs (every id, its outcome and case count) and the suggestion as JSON'))
    .addHelpText(
      'after',
      `
  The task is prepared as an attempt prepares it (repo, setup, baseline commit) and its test command
  runs once in the sandbox without network, at the baseline or on the oracle's change (with test
  files taken from the baseline, as grading does). Each line is an outcome (passed, failed, error,
  skipped) and the id exactly as the task set must write it; an id that several test cases share is
  flagged: listed, it cannot pass (docs/tasks.md). Progress goes to stderr; nothing is kept.

  Exit codes: 0 listed, 1 the test command gave no usable report (its output is shown), 2 bad input
  (unknown task, no oracle patch for --at oracle, a patch that does not apply, a
  failing setup command), 130 interrupted.

  Examples:
    crucible tests examples/tasks.yaml --task js-slugify
    crucible tests examples/tasks.yaml --task js-slugify --at oracle
    crucible tests examples/tasks.yaml --task js-slugify --suggest
    crucible tests crucible.tasks.yaml --suggest --write`,
    )
    .action(async (taskset: string, opts) => (await import('./tests.js')).testsCommand(taskset, opts, io));
}
