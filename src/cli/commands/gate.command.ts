import { Command } from 'commander';
import { agentsFileOption, collect, concurrencyOption, jsonOption, quietOption, sandboxOption, stateDirOption, withOptions } from '../options.js';
import { MODEL_OPTIONS } from '../model-options.js';
import type { CliIo } from '../io.js';

/** `crucible gate`: its options, arguments and help; the action is imported only when it runs. */
export function defineGate(io: CliIo): Command {
  const command = new Command('gate')
    .description('Run a task set or suite (or take --run) and fail if an agent got worse than a baseline, by the paired test `compare` uses.')
    .argument('<taskset>', 'task-set or suite YAML file the baseline was saved from')
    .requiredOption('--baseline <file>', 'baseline file written by `crucible baseline save`')
    .option('-r, --run <run-id>', 'judge this finished run instead of running')
    .option('-a, --agent <spec>', "agent to run (repeatable; default: the baseline's agents)", collect)
    .addOption(agentsFileOption('agent profiles (agents: [...]) that --agent may name'))
    .option('-n, --runs <n>', "attempts per task and agent (default: the baseline's)")
    .addOption(concurrencyOption('attempts in flight at once (default: min(cores, 4))'))
    .option('--min-success-rate <percent>', "fail when an agent's pass rate on the gated tasks is below this (0-100; default: no floor)")
    .option(
      '--min-strength <f>',
      "fail when a gated task's strength (crucible validate --strength) is below this fraction, or was not measured, e.g. 0.8 (docs/strength.md)",
    )
    .option('--max-drop <points>', 'fail when the paired test says an agent got worse by more than this many points (default 0)')
    .option('--max-regressed-tasks <n>', 'fail when more tasks than this went PASS→FAIL (default 0)')
    .option('--allow-version-mismatch', 'compare even when a task changed version since the baseline (reported in the verdict)')
    .option(
      '--adaptive',
      'draw trials until an anytime-valid test decides pass or regression beyond --max-drop, or the budget is spent (docs/adaptive.md#gating-adaptively-gate---adaptive)',
    )
    .option('--max-attempts <n>', 'with --adaptive: the most attempts the gate may spend')
    .option('--alpha <a>', 'with --adaptive: the error rate of the decision (default 0.05)')
    .addOption(stateDirOption("Crucible's state directory (runs; the gate's report goes to <out>/gates/<id>/)"))
    .addOption(sandboxOption('where agents and tests run: bwrap (default on Linux), local, or docker (containers; tasks with an environment need it)'))
    .addOption(quietOption('no progress output'))
    .addOption(jsonOption('print gate.json on stdout'))
    .addHelpText(
      'after',
      `
  Per agent, on the tasks both sides scored: the paired sign-flip comparison of \`crucible compare\`
  (change new − baseline, its 95% interval and p), tasks that went PASS→FAIL (every baseline attempt
  passed, no new one did) and checks failing that never failed in the baseline. An agent not in the
  baseline is compared with the baseline's only agent. Rules: docs/ci.md#baselines-and-gates.

  Exit codes: 0 pass, 1 a rule failed, 2 bad input (a bad baseline file, a task whose version
  changed since the baseline without --allow-version-mismatch), 130 interrupted.

  Examples:
    crucible gate examples/tasks.yaml --baseline baselines/main.json
    crucible gate examples/tasks.yaml --baseline baselines/main.json --agent nop --max-drop 5
    crucible gate examples/tasks.yaml --baseline baselines/main.json --run 20261201-1002
    crucible gate examples/tasks.yaml --baseline baselines/main.json --adaptive --max-attempts 60 --max-drop 10`,
    )
    .action(async (taskset: string, opts) => (await import('./gate.js')).gateCommand(taskset, opts, io));
  return withOptions(command, MODEL_OPTIONS);
}
