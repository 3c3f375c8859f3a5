import { Command } from 'commander';
import { agentsFileOption, jsonOption, sandboxOption, stateDirOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible agents`: its options, arguments and help; the action is imported only when it runs. */
export function defineAgents(io: CliIo): Command {
  return new Command('agents')
    .description('List, install and check the external agents (CLI agents with a profile): claude-code, codex, …')
    .addHelpText(
      'after',
      `
  A profile says how to run one command-line agent: its npm package or program, its argv, the
  protocol it speaks. Built-in profiles ship in profiles/; --agents FILE and a task set's agents:
  section add or override them by name. Writing a profile: docs/agents.md.

  Examples:
    crucible agents list
    crucible agents install claude-code codex
    crucible agents check claude-code:claude-sonnet-4-5`,
    )
    .addCommand(
      new Command('list')
        .description('Show every profile: package or program, default model, protocol, installed version, where it comes from.')
        .addOption(agentsFileOption('also the profiles in this file (they override built-in ones of the same name)'))
        .addOption(stateDirOption("Crucible's state directory (the agent cache is <out>/agents unless CRUCIBLE_AGENT_CACHE is set)"))
        .addOption(jsonOption('print JSON'))
        .action(async (opts) => (await import('./agents.js')).agentsListCommand(opts, io)),
    )
    .addCommand(
      new Command('install')
        .description("Install agents' npm packages into the agent cache now, so a run does not wait for them.")
        .argument('[names...]', 'profile names')
        .option('--all', 'every profile with a package')
        .addOption(agentsFileOption('also the profiles in this file'))
        .addOption(stateDirOption("Crucible's state directory (the agent cache is <out>/agents unless CRUCIBLE_AGENT_CACHE is set)"))
        .addHelpText(
          'after',
          `
  Each package installs once into <cache>/<name>-<hash of the spec>/ with npm; dependencies' install
  scripts do not run (only the agent package's own). Runs install missing agents by themselves.

  Examples:
    crucible agents install claude-code
    crucible agents install --all`,
        )
        .action(async (names: string[], opts) => (await import('./agents.js')).agentsInstallCommand(names, opts, io)),
    )
    .addCommand(
      new Command('check')
        .description('Run the bundled example task js-slugify with one agent and say what is wrong, if anything.')
        .argument('<agent>', 'NAME or NAME:model')
        .addOption(agentsFileOption('also the profiles in this file'))
        .option('--replay <dir>', 'answer model requests from the cassettes in <dir>, offline, without API keys')
        .addOption(stateDirOption("Crucible's state directory (the check's run is recorded there)"))
        .addOption(sandboxOption('where the agent runs: bwrap (default on Linux), local, or docker'))
        .addHelpText(
          'after',
          `
  The check is one attempt of a real run (\`crucible run examples/tasks.yaml --task js-slugify\`), so
  it needs the agent's API key unless --replay is given. It says, one line per problem: a missing key
  (exit 2, naming the variable), the agent crashed or refused (its exit code and last output), it
  made no edits, or OK with the verdict (exit 0 when the attempt passed, 1 otherwise).

  Examples:
    crucible agents check claude-code
    crucible agents check codex:gpt-5-mini --replay examples/cassettes/agents`,
        )
        .action(async (agent: string, opts) => (await import('./agents.js')).agentsCheckCommand(agent, opts, io)),
    );
}
