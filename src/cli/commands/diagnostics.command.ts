import { Command } from 'commander';
import { collect, jsonOption, jsonSpec, sandboxSpec, stateDirOption, stateDirSpec, withOptions, type OptionGroup } from '../options.js';
import type { CliIo } from '../io.js';

/** What the catalogue diagnostics (mutations, ablation) take. */
const CATALOGUE_OPTIONS: OptionGroup = [
  { flags: '--catalog <file>', description: 'a catalogue YAML file instead of the shipped one (docs/diagnostics.md#the-catalogue-format)' },
  sandboxSpec("where the fixtures' tests run (default: bwrap when available)", ['bwrap', 'local']),
  { flags: '--concurrency <n>', description: 'entries evaluated at once', defaultValue: '2' },
  stateDirSpec("Crucible's state directory (reports go to <out>/diagnostics/<kind>/<id>/)"),
  jsonSpec('print report.json on stdout; the summary goes to stderr'),
];

/** `crucible diagnostics mutations|ablation|fuzz|matrix-stress`: options, arguments and help; the actions are imported only when they run. */
export function defineDiagnostics(io: CliIo): Command {
  return new Command('diagnostics')
    .description("Measure Crucible's own grader: mutation audit, check ablation, policy fuzzing, matrix stress.")
    .addHelpText(
      'after',
      `
  Each diagnostic writes report.json and report.md under <out>/diagnostics/<kind>/<id>/ and shows in
  \`crucible view\`. What each measures, and what it does not: docs/diagnostics.md.

  Examples:
    crucible diagnostics mutations
    crucible diagnostics mutations --disable-check secrets
    crucible diagnostics ablation
    crucible diagnostics fuzz --seed 7 --count 500
    crucible diagnostics matrix-stress --attempts 10000 --concurrency 8`,
    )
    .addCommand(
      withOptions(
        new Command('mutations')
          .description(
            'Apply a catalogue of known tampering and policy violations (and safe changes) to fixture repos, without any agent, and check that the checks catch each one and nothing else.',
          )
          .option('--disable-check <id>', 'judge without this check, as if it did not exist (repeatable)', collect),
        CATALOGUE_OPTIONS,
      )
        .addHelpText(
          'after',
          `
  Every entry runs the real test guard, diff, secret scan, test run (sandboxed) and checks once.
  Exit codes: 0 every expected detection made and no false alarm, 1 a miss, a false alarm on a safe
  entry or an unexpected detection, 2 bad input (a bad catalogue file names file, line and field).`,
        )
        .action(async (opts) => (await import('./diagnostics.js')).mutationsCommand(opts, io)),
    )
    .addCommand(
      withOptions(
        new Command('ablation').description(
          'Run the catalogue once and judge it again with each check removed: what each check alone detects, and what another check covers.',
        ),
        CATALOGUE_OPTIONS,
      )
        .addHelpText(
          'after',
          `
  Exit codes: 0 the control (every check) is valid and contributions are reported, 1 the control has
  a miss or a false alarm (no contribution is claimed), 2 bad input.`,
        )
        .action(async (opts) => (await import('./diagnostics.js')).ablationCommand(opts, io)),
    )
    .addCommand(
      new Command('fuzz')
        .description('Run seeded generated variants (paths, secrets, commands, diff sizes, scope, tampering, traversal) through the real checks.')
        .option('--seed <n>', 'seed of the generated corpus (same seed and count, same corpus and byte-identical report)', '7')
        .option('--count <n>', 'number of variants', '500')
        .addOption(stateDirOption("Crucible's state directory; the report goes to <out>/diagnostics/fuzz/seed-<n>-n<count>/"))
        .addOption(jsonOption('print the report as JSON'))
        .addHelpText(
          'after',
          `
  Every variant says what each check it is about must do: detect (hostile), pass (benign), or pass as
  a documented known limit or by-design case (encoded secrets, lookalike names). Exit 0 when every
  check agreed, 1 on any disagreement (listed), 2 on bad options. Details: docs/diagnostics.md.

  Examples:
    crucible diagnostics fuzz --seed 7
    crucible diagnostics fuzz --seed 42 --count 2000 --json`,
        )
        .action(async (opts) => (await import('./diagnostics-fuzz.js')).fuzzCommand(opts, io)),
    )
    .addCommand(
      new Command('matrix-stress')
        .description('Run a large synthetic plan through the real scheduler, checkpoint, history and statistics, and check the bookkeeping.')
        .option('--attempts <n>', 'attempts in the plan (rounded up to whole tasks of 2 agents x 5 trials)', '1000')
        .option('--concurrency <n>', 'attempts in flight at once', '4')
        .option('--no-fail-fast', 'skip the second run, with --fail-fast, and its accounting check')
        .addOption(stateDirOption("Crucible's state directory; the report goes to <out>/diagnostics/matrix-stress/<id>/"))
        .addOption(jsonOption('print the report as JSON'))
        .addHelpText(
          'after',
          `
  Checks planned = submitted + skipped, executed = checkpoint rows = history rows, no duplicate
  (task, agent, trial), plan order in the summary, aggregates equal to the synthetic arithmetic, and
  fail-fast accounting; prints throughput and peak RSS. The synthetic runs use a temporary state
  directory, never your history. Exit 0 when every check passed, 1 otherwise, 2 on bad options.

  Examples:
    crucible diagnostics matrix-stress --attempts 10000
    crucible diagnostics matrix-stress --attempts 300 --concurrency 8 --json`,
        )
        .action(async (opts) => (await import('./diagnostics-matrix-stress.js')).matrixStressCommand(opts, io)),
    );
}
