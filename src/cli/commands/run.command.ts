import { Command, Option } from 'commander';
import { agentsFileOption, collect, concurrencyOption, jsonOption, quietOption, sandboxOption, stateDirOption, taskOption, withOptions } from '../options.js';
import { datasetTaskSet, registryHelp } from '../dataset-argument.js';
import { MODEL_OPTIONS } from '../model-options.js';
import { REPORTER_OPTIONS } from '../report-options.js';
import type { CliIo } from '../io.js';

/** `crucible run`: its options, arguments and help; the action is imported only when it runs. */
export function defineRun(io: CliIo): Command {
  const command = new Command('run')
    .description('Run agents on a task set or a suite, each task --runs times, and grade every attempt on test evidence.')
    .argument('<taskset>', 'task-set YAML file, e.g. examples/tasks.yaml, or a suite file (docs/suites.md), or a dataset NAME@VERSION (docs/datasets.md)')
    .option('--registry <file|url>', registryHelp)
    .option('-a, --agent <spec>', 'agent to run (repeatable): oracle, nop, a profile NAME[:model] (crucible agents list), or provider:model', collect)
    .addOption(agentsFileOption("agent profiles (agents: [...]) that --agent may name; they override built-in profiles and the task set's agents:"))
    .addOption(taskOption('only this task (repeatable)'))
    .option('--tag <tag>', 'only tasks with this tag (repeatable: any of them)', collect)
    .option('--category <name>', 'only tasks in this category (repeatable)', collect)
    .option('--difficulty <level>', 'only tasks of this difficulty (repeatable)', collect)
    .option('-n, --runs <n>', "attempts per task and agent (agents are not deterministic; default 1, or a suite's runs:)")
    .addOption(concurrencyOption('attempts in flight at once (default: min(cores, 4))'))
    .option('--fail-fast', 'stop starting attempts after the first one that does not pass')
    .option(
      '--adaptive',
      'run trials only where the answer is still open and stop when the target is met (docs/adaptive.md); --runs is then the most per task and agent (default 10)',
    )
    .option('--max-attempts <n>', 'with --adaptive: the most attempts the run may spend')
    .option('--separate <alpha>', 'with --adaptive: stop when every pair of agents is separated at this error rate (the default target, 0.05)')
    .option('--width <w>', "with --adaptive: stop when every agent's pass-rate interval is at most this wide, e.g. 0.1")
    .option('--resume <run-id>', 'continue this run (id or unique prefix) with the same config, reusing its finished attempts')
    .option('--force', 'with --resume: accept a changed config, rerunning only attempts whose task, agent or settings changed')
    .option('--retry-errors', 'with --resume: also rerun the attempts that ended in a harness error (a full disk, a sandbox failure)')
    .addOption(stateDirOption("Crucible's state directory (runs, caches, history)"))
    .addOption(sandboxOption('where agents and tests run: bwrap (default on Linux), local, or docker (containers; tasks with an environment need it)'))
    .option(
      '--keep-workspace',
      "keep each attempt's scratch trees after grading, for debugging: agent-workspace/ (what the agent left), workspace/ (the last verification copy), pristine/",
    )
    .option('--no-prepare-cache', "run each task's setup in every attempt instead of building its prepared tree once (in <out>/cache/prepared/) and copying it")
    .option(
      '--no-baseline-tests',
      'attempts the preflight could not give a baseline run to skip their own (failing pass-to-pass tests then count as regressions); the preflight still runs the tests once per task',
    )
    .addOption(
      new Option(
        '--guard <mode>',
        "watch each agent while it runs (workspace writes, commands) with the checks' own rules: audit records incidents; enforce also refuses unsafe commands and stops an agent that writes where the policy forbids (docs/guard.md)",
      ).choices(['audit', 'enforce']),
    )
    .addOption(quietOption('no progress output; only the final report'))
    .addOption(jsonOption('print the run summary (with statistics) as JSON on stdout; the report goes to stderr'))
    .option(
      '--queue <url>',
      'run the attempts on workers (`crucible worker`) through this Redis, e.g. redis://127.0.0.1:6379/0; -j is then the jobs queued at once (default 64); docs/distributed.md',
    )
    .addHelpText(
      'after',
      `
  Progress is live on a terminal and one line per attempt otherwise (CI=true, pipes). Ctrl-C stops
  starting attempts and gives running ones 10s to finish; a second Ctrl-C kills them. Everything that
  finished is kept: \`crucible resume <run-id>\` runs the rest.

  Exit codes: 0 every planned attempt passed, 1 some attempt failed, errored or did not run,
  2 bad input, a broken task (found before any agent, reported with the field to fix) or an unusable
  state directory, 75 disk full (free space, then \`crucible resume <run-id> --retry-errors\`), 130 interrupted.

  Examples:
    crucible run examples/tasks.yaml --agent oracle --agent nop --runs 3 --concurrency 2
    crucible run examples/tasks.yaml --agent nop --tag python --fail-fast
    crucible run examples/tasks.yaml --agent oracle --agent nop --runs 3 --resume 20261130-0917`,
    )
    .action(async (taskset: string, opts) => (await import('./run.js')).runCommand(await datasetTaskSet(taskset, opts, io), opts, io));
  return withOptions(command, MODEL_OPTIONS, REPORTER_OPTIONS);
}
