import { Command } from 'commander';
import { concurrencyOption, jsonOption, quietOption, stateDirOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible resume`: its options, arguments and help; the action is imported only when it runs. */
export function defineResume(io: CliIo): Command {
  return new Command('resume')
    .description('Finish an interrupted or crashed run: reuse its finished attempts, run the rest.')
    .argument('<run-id>', 'run id or unique prefix (see `crucible history --runs`)')
    .addOption(concurrencyOption('attempts in flight at once (default: min(cores, 4))'))
    .option('--fail-fast', 'stop starting attempts after the first one that does not pass')
    .option('--force', 'continue even if the task set changed since the run started (changed tasks run again)')
    .option(
      '--retry-errors',
      'also rerun attempts that ended ERROR (harness_error: a full disk, a sandbox that failed; provider_error: the model provider failed), replacing their records',
    )
    .addOption(stateDirOption("Crucible's state directory the run is in"))
    .addOption(quietOption('no progress output; only the final report'))
    .addOption(jsonOption('print the run summary as JSON on stdout'))
    .option('--queue <url>', "a distributed run's queue, when its Redis moved (default: the URL plan.json recorded)")
    .addHelpText(
      'after',
      `
  The run's plan.json fixes the task set, tasks, agents, runs and sandbox. Each recorded attempt is
  reused only if its attempt.json still has the hash the checkpoint recorded; a task whose content
  changed since is an error unless --force, which reruns just that task's attempts. Attempts a
  killed run left unfinished, and its temporary files, are removed first.

  --retry-errors reruns the attempts that ended as harness errors: the machine failed, not the task
  or the agent. Each rerun replaces the errored attempt (checkpoint line, attempt directory, history
  row), so statistics count it once. Task errors and agent failures are kept as recorded.

  A full disk stops a run (exit 75) and a read-only or unwritable state directory refuses it
  (exit 2), each with one line naming the directory; everything finished is kept. Free space, then
  resume with --retry-errors to rerun the attempts the disk failed.

  Exit codes: 0 every planned attempt passed, 1 some attempt failed, errored or did not run,
  2 bad input or an unusable state directory, 75 disk full (resume once there is space), 130 interrupted.

  Examples:
    crucible resume 20261130-0917
    crucible resume 20261130-0917 --retry-errors`,
    )
    .action(async (runId: string, opts) => (await import('./resume.js')).resumeCommand(runId, opts, io));
}
