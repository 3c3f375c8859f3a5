import { Command } from 'commander';
import { concurrencyOption, jsonOption, quietOption, sandboxOption, stateDirOption, withOptions } from '../options.js';
import { REPORTER_OPTIONS } from '../report-options.js';
import type { CliIo } from '../io.js';

/** `crucible grade`: its options, arguments and help; the action is imported only when it runs. */
export function defineGrade(io: CliIo): Command {
  const command = new Command('grade')
    .description('Grade patches made anywhere (SWE-bench predictions, or <task-id>.patch files) against a task set, each as an attempt of its model.')
    .argument('<taskset>', 'task-set YAML file (or suite) whose task ids the predictions name')
    .requiredOption(
      '-p, --predictions <path>',
      'SWE-bench predictions (JSONL, or a JSON array) with instance_id, model_name_or_path, model_patch; or a directory of <task-id>.patch files',
    )
    .option('--model-name <name>', 'the model of a directory of patches (default: its name), or of predictions without model_name_or_path')
    .option('--skip-unknown', 'leave out predictions for tasks the task set does not have (with a note) instead of stopping')
    .addOption(concurrencyOption('attempts in flight at once (default: min(cores, 4))'))
    .addOption(stateDirOption("Crucible's state directory (runs, caches, history)"))
    .addOption(sandboxOption('where the patched code and tests run: bwrap (default on Linux), local, or docker'))
    .option('--keep-workspace', "keep each attempt's scratch trees after grading, for debugging")
    .addOption(quietOption('no progress output; only the final report'))
    .addOption(jsonOption('print the run summary as JSON on stdout; the report goes to stderr'))
    .addHelpText(
      'after',
      `
  Each prediction is applied with git apply in a clean copy of its task's repo and graded like any
  attempt: every check, held-out tests, one cause. A patch that does not apply is that prediction's
  FAIL. The run is recorded in the history like \`crucible run\`'s (show, compare, gate, export).

  Exit codes: 0 every prediction passed, 1 some failed, 2 bad input (a prediction for a task the set
  does not have, without --skip-unknown) or a broken task.

  Examples:
    crucible grade examples/tasks.yaml --predictions predictions.jsonl
    crucible grade examples/tasks.yaml --predictions patches/ --model-name my-model`,
    )
    .action(async (taskset: string, opts) => (await import('./grade.js')).gradeCommand(taskset, opts, io));
  return withOptions(command, REPORTER_OPTIONS);
}
