import { Command } from 'commander';
import { stateDirOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible export`: its options, arguments and help; the action is imported only when it runs. */
export function defineExport(io: CliIo): Command {
  return new Command('export')
    .description(
      "Write a run in another harness's format: --format swe-bench writes predictions JSONL and SWE-bench's report (--submission: a leaderboard folder); --format atif writes each attempt's trajectory in Harbor's ATIF.",
    )
    .argument('<run>', 'run id (or a unique prefix)')
    .requiredOption('--format <format>', 'swe-bench or atif')
    .option('--dir <dir>', 'where to write (default: <run dir>/swe-bench or <run dir>/atif)')
    .option('--dataset <file>', "swe-bench: the SWE-bench dataset file total_instances counts (default: the run's tasks)")
    .option('--submission <dir>', 'swe-bench: also write a leaderboard folder <dir>/<date>_<model>/ as SWE-bench/experiments lays one out')
    .addOption(stateDirOption("Crucible's state directory"))
    .addHelpText(
      'after',
      `
  swe-bench, per agent: <model>.predictions.jsonl (instance_id = task id, model_name_or_path = agent,
  model_patch = the patch as submitted), <model>.<run-id>.json (the report SWE-bench's harness
  writes, resolved by its rule: every fail-to-pass and pass-to-pass test passes) and
  <model>.<run-id>.resolution.json (both rules; Crucible's excuses tests broken at the baseline).
  docs/swe-bench.md describes the files and the submission folder.

  Examples:
    crucible export 20261130-0917 --format swe-bench
    crucible export 20261130-0917 --format swe-bench --dataset swe-bench-verified.jsonl --submission experiments/evaluation/verified
    crucible export 20261130-0917 --format atif --dir trajectories`,
    )
    .action(async (run: string, opts) => (await import('./export.js')).exportCommand(run, opts, io));
}
