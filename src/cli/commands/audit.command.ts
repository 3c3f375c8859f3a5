import { Command } from 'commander';
import { concurrencyOption, jsonOption, sandboxOption, stateDirOption, taskOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible audit`: its options, arguments and help; the action is imported only when it runs. */
export function defineAudit(io: CliIo): Command {
  return new Command('audit')
    .description("Run the reference agents on a benchmark and report where they depart from its registry's contracts, and unstable tasks.")
    .argument('<pack|taskset>', 'a pack (*.zip, verified and imported into a scratch directory) or a task-set / suite YAML file')
    .option('--registry <file>', 'the registry: task families, versions and contracts (default: registry.yaml next to the task set, else the default contract)')
    .option('-n, --runs <n>', 'trials per task and reference agent', '3')
    .addOption(taskOption('only this task (repeatable; it must be in a family)'))
    .addOption(concurrencyOption('attempts in flight at once (default: min(cores, 4))'))
    .addOption(stateDirOption("Crucible's state directory (attempts go to <out>/validate/<id>, the report to <out>/audit/<id>)"))
    .addOption(sandboxOption('where agents and tests run: bwrap (default on Linux), local, or docker'))
    .option(
      '--trust <file>',
      'with a pack: a trust policy (trusted keys, signatures required); an unsigned or untrusted pack is refused before anything is written',
    )
    .addOption(jsonOption('print the audit report as JSON on stdout'))
    .addHelpText(
      'after',
      `
  Without a registry every task gets the default contract: oracle PASS with every check passing, nop
  FAIL (no_changes) with tests and no_changes failing. See docs/audit.md for the registry format.

  Exit codes: 0 every task conforms, 1 a departure from a contract or trials that disagree, 2 bad input
  (a registry or task-set error, naming the file, field and fix), 75 disk full, 130 interrupted.

  Examples:
    crucible audit examples/tasks.yaml --registry examples/registry.yaml --runs 3
    crucible audit bench.crucible.zip --registry registry.yaml --json`,
    )
    .action(async (input: string, opts) => (await import('./audit.js')).auditCommand(input, opts, io));
}
