import { Command, CommanderError, Option, type OutputConfiguration } from 'commander';
import { EXIT, handleError, type ExitCode } from './exit.js';
import type { CliIo } from './io.js';
import { addModelOptions } from './model-options.js';
import { agentsFileOption, collect, concurrencyOption, jsonOption, quietOption, sandboxOption, stateDirOption, taskOption } from './options.js';
import { addReporterOptions } from './report-options.js';
import { resolveStateDirOption } from './state-dir-option.js';
import { datasetTaskSet, registryHelp } from './dataset-argument.js';
import { version } from '../core/version.js';

/** The CLI as a value: its commander tree (for help and the docs test) and the call that runs it. */
export interface CrucibleProgram {
  readonly command: Command;
  /** Parses the user's arguments (no `node` and script path), runs the command and returns its exit code. */
  run(args: readonly string[]): Promise<ExitCode | number>;
}

/**
 * Builds the CLI over `io`: every command, its options (shared ones from options.ts) and help.
 * Each command's module is imported only when it runs, so `crucible --help` and a `run` of the
 * reference agents load none of the heavy modules (the model SDK, the dashboard, the queue).
 * Nothing here or in the commands reads `process`: streams, environment, directory and signals
 * are io's, and the exit code is returned, never set.
 */
export function createProgram(io: CliIo): CrucibleProgram {
  const program = new Command('crucible')
    .configureOutput(outputTo(io))
    .description('Measure how well AI coding agents work on real repositories, graded on evidence they cannot forge.')
    .version(version())
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .hook('preAction', (_program, action) => resolveStateDirOption(action, io.cwd));

  program
    .command('run')
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
    .action(async (taskset: string, opts) => (await import('./commands/run.js')).runCommand(await datasetTaskSet(taskset, opts, io), opts, io));
  addModelOptions(program.commands.find((c) => c.name() === 'run') as Command);
  addReporterOptions(program.commands.find((c) => c.name() === 'run') as Command);

  program
    .command('quickstart')
    .description(
      'From any directory: copy the examples Crucible ships into ./crucible-quickstart and run them, the model replayed (no key, no network), in the safest sandbox here.',
    )
    .option('--dir <dir>', 'where the examples are copied (a second run uses what is there)', 'crucible-quickstart')
    .addOption(stateDirOption("Crucible's state directory (runs, caches, history)"))
    .action(async (opts) => (await import('./commands/quickstart.js')).quickstartCommand(opts, io));

  program
    .command('plan')
    .description(
      'How many tasks and trials a fixed design needs to separate two agents by --detect, and what --adaptive is expected to spend instead (by simulation).',
    )
    .argument('<taskset>', 'task-set YAML file or suite, e.g. examples/tasks.yaml')
    .requiredOption('--detect <diff>', 'the difference in pass rate to detect, e.g. 5pp')
    .option('--power <p>', 'the wanted chance of separating them at that difference', '0.8')
    .option('--sims <n>', 'simulated runs per design evaluated', '200')
    .addOption(jsonOption('print the plan as JSON'))
    .action(async (taskset: string, opts) => (await import('./commands/plan.js')).planCommand(taskset, opts, io));

  program
    .command('grade')
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
    .action(async (taskset: string, opts) => (await import('./commands/grade.js')).gradeCommand(taskset, opts, io));
  addReporterOptions(program.commands.find((c) => c.name() === 'grade') as Command);

  program
    .command('ci')
    .description('Grade the change in this checkout (the working tree against HEAD, or --base REF --head REF) like an attempt: tests, policy checks, verdict.')
    .option('--base <ref>', 'the commit the change starts from', 'HEAD')
    .option('--head <ref>', 'the commit with the change (default: the working tree, untracked files included)')
    .option('--repo <dir>', 'the checkout (default: the current directory)')
    .option('-c, --config <file>', 'settings file (default: crucible.ci.yaml as committed at --base, else at head)')
    .option('--test-command <cmd>', 'test command (overrides tests.command); it writes JUnit XML to $CRUCIBLE_JUNIT')
    .option('--junit <path>', 'where the test command writes JUnit instead, relative to the checkout')
    .option('--fail-to-pass <id>', 'a test id that must pass at head (repeatable; overrides tests.fail_to_pass)', collect)
    .option('--commands <file>', 'a command log (commands.jsonl) for the unsafe_commands check')
    .option('--no-baseline-tests', 'do not run the tests at base (then every failing test counts as a regression)')
    .addOption(sandboxOption('where setup and tests run (default: bwrap when available; docker: containers of the host view)'))
    .option('--allow-failure', 'report a FAIL but exit 0')
    .addOption(stateDirOption("Crucible's state directory (reports go to <out>/ci/<id>/)"))
    .addOption(jsonOption('print ci.json on stdout; the summary goes to stderr'))
    .addOption(quietOption('with --json: no summary'))
    .addHelpText(
      'after',
      `
  The checkout is never modified: base is exported into a scratch directory (setup runs there), the
  change is laid over it, and the tests run in fresh copies, at base and at head, in the sandbox
  without network. A change to a test file is \`tampered\`; a test that passed at base and fails
  at head is a \`regression\`. Reports: ci.json, report.md, results.sarif, diff.patch, JUnit. With
  $GITHUB_STEP_SUMMARY set, report.md is appended to it. docs/ci.md describes crucible.ci.yaml.

  Exit codes: 0 PASS (or --allow-failure), 1 FAIL, 2 bad input (not a git checkout, a bad ref, a
  bad config, a failing setup command), 3 ERROR (the test command gave no report at head nor at
  base: no verdict on the change).

  Examples:
    crucible ci --test-command 'npm test'
    crucible ci --base main --head pr-branch
    crucible ci --base origin/main --head HEAD --json > ci.json`,
    )
    .action(async (opts) => (await import('./commands/ci.js')).ciCommand(opts, io));

  program
    .command('validate')
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
    .action(async (taskset: string, opts) => (await import('./commands/validate.js')).validateCommand(await datasetTaskSet(taskset, opts, io), opts, io));

  program
    .command('tests')
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
    .action(async (taskset: string, opts) => (await import('./commands/tests.js')).testsCommand(taskset, opts, io));

  program
    .command('init')
    .description('Start on your own repository: detect its test runner, write crucible.tasks.yaml and crucible.ci.yaml, list its test ids.')
    .argument('[dir]', 'the git repository (default: the current directory)')
    .option('--test-command <cmd>', 'the test command, instead of the detected one (JUnit to $CRUCIBLE_JUNIT, or TAP, go or libtest JSON on stdout)')
    .option('--no-tests', 'write the files without running the tests')
    .addOption(stateDirOption("Crucible's state directory (caches; the test run's scratch copy is removed)"))
    .addOption(sandboxOption('where setup and the tests run (default: bwrap on Linux)'))
    .addHelpText(
      'after',
      `
  The task starts from the repository's HEAD. An uncommitted change to files that are not tests
  becomes its oracle patch (crucible.oracle.patch); the tests then run on both sides, and those it
  makes pass are written into fail_to_pass. The report format is read from the project (tape,
  node-tap, mocha, ava: TAP; node --test, vitest, jest, pytest: JUnit; go, cargo: JSON) and
  confirmed by the run's own output. Existing files are never overwritten.

  Exit codes: 0 written and listed, 2 bad input (a file already there, no test runner, a run that
  gives no report: one line saying what its output is and the line to add), 130 interrupted.

  Examples:
    crucible init
    crucible init ../my-repo --test-command 'npx vitest run --reporter=junit --outputFile="$CRUCIBLE_JUNIT"'`,
    )
    .action(async (dir: string | undefined, opts) => (await import('./commands/init.js')).initCommand(dir, opts, io));

  program
    .command('mine')
    .description("Make tasks from a repository's history: each commit that changes tests and code, judged in the sandbox, kept when its tests prove its fix.")
    .argument('[repo]', 'the git repository (default: the current directory)')
    .option('--dest <dir>', 'where the task set, repos/, oracle/ and mine.json are written (a new directory, or one mine wrote)', 'crucible-mined')
    .option('--since <date>', 'only commits after this date (any date git log takes: 2024-01-01, "6 months ago")')
    .option('--until <date>', 'only commits before this date')
    .option('--limit <n>', 'judge at most this many candidates, newest first')
    .option('--paths <pathspec>', 'only commits that touch these paths (repeatable)', collect)
    .option('--test-paths <glob>', 'which changed files are tests (repeatable; default as task new)', collect)
    .option('--test-command <cmd>', 'the test command for every commit, instead of the one detected at each commit')
    .option(
      '--writer <spec>',
      'who writes the instructions: template:FILE fills {{problem}}, {{body}}, {{failing_tests}}, {{drafted}}; provider:model rewrites them through the gateway (default: drafted)',
    )
    .option('--base-url <[provider=]url>', "a model writer's upstream URL (as crucible run's)", collect)
    .option('--record <dir>', "also record the model writer's calls as cassettes in <dir>")
    .option('--replay <dir>', "answer the model writer's calls from the cassettes in <dir>, offline")
    .option('--pricing <file>', "a pricing.yaml whose entries override the bundled prices (the writer's cost)")
    .option('-j, --jobs <n>', 'candidates judged at once (default 1)')
    .option('-n, --runs <n>', 'runs of each side per candidate; every one must agree, or it is dropped as flaky (default 3)')
    .addOption(jsonOption('print the summary (every commit walked, kept or dropped and why) as JSON'))
    .addOption(stateDirOption("Crucible's state directory (caches; the test runs' scratch copies are removed)"))
    .addOption(sandboxOption("where the tests run: bwrap (default on Linux) or docker; never local, since every commit's code runs"))
    .addHelpText(
      'after',
      `
  Each candidate is built as \`crucible task new\` builds a task: the starting point is the parent's
  files with the commit's test files, the oracle the rest of the commit, setup from the starting
  point's own lockfile. Its tests run in the sandbox before and with the fix, --runs times each: it
  is kept when a test fails before and passes after, none that passed before fails after, and every
  run agrees. Kept tasks are ranked (more fail-to-pass tests, then the smaller fix) and deduplicated.
  Instructions are drafted from the commit message and the failing tests' names and messages, with
  no model (--writer provider:model rewrites them through the gateway, metered; --record/--replay
  as for crucible run). Interrupted, it resumes where it stopped when run again with the same --dest.

  Exit codes: 0 at least one task kept, 1 none kept (mine.json says why), 2 bad input, 130
  interrupted.

  Examples:
    crucible mine
    crucible mine ../my-repo --since 2024-01-01 --limit 50 --jobs 2 --dest mined`,
    )
    .action(async (repo: string | undefined, opts) => (await import('./commands/mine.js')).mineCommand(repo, opts, io));

  program
    .command('task')
    .description('Author tasks: `task new` scaffolds one from a fix in a git history.')
    .addCommand(
      new Command('new')
        .description(
          'Scaffold a task from commits A..B of a git repo: tests from the test diff, oracle from the rest, F2P/P2P found by running both; then validate it.',
        )
        .argument('<taskset>', 'task-set YAML file to add the task to (created when missing)')
        .option('--id <id>', 'the task id (letters, digits, ".", "_", "-")')
        .option('--repo <dir>', 'the git repository whose commits make the task')
        .option('--from-commits <A..B>', 'A has the bug, B the fix and its tests (one commit C means C^..C)')
        .option(
          '--test-paths <glob>',
          'which changed files are tests (repeatable; default: test/**, tests/**, spec/**, *.test.*, *_test.*, test_*.py … at any depth)',
          collect,
        )
        .option(
          '--test-command <cmd>',
          "the command that runs the tests and writes JUnit XML to $CRUCIBLE_JUNIT (default: the task set's defaults.tests.command)",
        )
        .option('--junit <path>', 'only for a runner that cannot write to $CRUCIBLE_JUNIT: its report, relative to the repo')
        .option('--setup <cmd>', 'a setup command, e.g. npm ci (repeatable; runs with network before the baseline)', collect)
        .option('--force', 'replace a task with the same id, and its repos/<id>/ and oracle/<id>.patch')
        .option('--no-validate', 'do not run crucible validate on the new task')
        .option('-n, --runs <n>', 'oracle attempts of the validation', '3')
        .addOption(stateDirOption("Crucible's state directory (caches, scratch copies, the validation run)"))
        .addOption(sandboxOption('where the tests run: bwrap (default on Linux), local, or docker'))
        .addHelpText(
          'after',
          `
  What it writes, next to the task set:
    repos/<id>/        the task's starting point: A's files, with the test files as B has them
    oracle/<id>.patch  the rest of the diff A..B: the fix, applied by --agent oracle and validate
    the task           appended to the task set (comments and layout of the file kept), with an
                       instruction stub from the commit messages, marked TODO: rewrite it
  fail_to_pass is every test that fails at the starting point and passes with the oracle;
  pass_to_pass is all_others when that selects the tests passing on both sides, else their list.
  The tests run as in \`crucible tests --suggest\`, then \`crucible validate --task <id>\` runs.

  Values left out are asked for when stdin is a terminal; otherwise a missing one is an error.

  Exit codes: 0 written and valid, 1 written but not valid or flaky, 2 bad input (nothing written:
  not a git repo, unknown commits, a range with no test or no source changes, no test command, tests
  that do not tell the fix from none, an id already there without --force), 130 interrupted.

  Examples:
    crucible task new tasks.yaml --id fix-median --repo ../stats --from-commits v1.4.0..fix-median \\
      --test-command 'python3 -m pytest -q --junitxml="$CRUCIBLE_JUNIT"'
    crucible task new tasks.yaml --repo . --from-commits HEAD~2..HEAD --test-paths 'test/**'
    crucible task new tasks.yaml          (asks for the rest)`,
        )
        .action(async (taskset: string, opts) => (await import('./commands/task.js')).taskNewCommand(taskset, opts, io)),
    );

  program
    .command('resume')
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
    .action(async (runId: string, opts) => (await import('./commands/resume.js')).resumeCommand(runId, opts, io));

  program
    .command('history')
    .description('List recorded attempts (or runs, or ci and gate results) from the history database, newest first.')
    .option('-a, --agent <spec>', 'only this agent')
    .option('-t, --task <id>', 'only this task')
    .option('-r, --run <run-id>', 'only this run (id or unique prefix), in plan order')
    .option('--since <when>', 'only since a date or a duration back: 2026-01-31, 24h, 7d, 2w')
    .option('-l, --limit <n>', 'at most this many rows', '50')
    .option('--runs', 'list runs instead of attempts')
    .option('--evaluations', 'list `crucible ci` and `crucible gate` results instead of attempts')
    .option('--kind <kind>', 'only ci or only gate results (implies --evaluations)')
    .addOption(jsonOption('print JSON'))
    .option('--csv', 'print CSV')
    .addOption(stateDirOption("Crucible's state directory (where history.db is)"))
    .addHelpText(
      'after',
      `
  Examples:
    crucible history --agent oracle --since 7d
    crucible history --runs --limit 10
    crucible history --kind gate --json
    crucible history --run 20261130-0917 --csv > attempts.csv`,
    )
    .action(async (opts) => (await import('./commands/history.js')).historyCommand(opts, io));

  program
    .command('show')
    .description('Show a run (its attempts and statistics) or one attempt (verdict, checks, tests, diff, timings, trajectory), or a trajectory file (ATIF).')
    .argument('<id>', 'run id or attempt id, or a unique prefix of one; or a trajectory file (Harbor ATIF .json, or trajectory.jsonl)')
    .addOption(jsonOption('print the stored record as JSON'))
    .addOption(stateDirOption("Crucible's state directory"))
    .addHelpText(
      'after',
      `
  Examples:
    crucible show 20261130-0917
    crucible show js-slugify.oracle.0
    crucible show jobs/trial-1/agent/trajectory.json`,
    )
    .action(async (id: string, opts) => (await import('./commands/show.js')).showCommand(id, opts, io));

  program
    .command('export')
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
    .action(async (run: string, opts) => (await import('./commands/export.js')).exportCommand(run, opts, io));

  program
    .command('compare')
    .description('Compare two runs: per (agent, task) cell deltas, regressions, and a paired verdict per agent.')
    .argument('<run-a>', 'the baseline run (id or unique prefix)')
    .argument('<run-b>', 'the run to compare with it')
    .addOption(jsonOption('print the comparison as JSON'))
    .addOption(stateDirOption("Crucible's state directory"))
    .addHelpText(
      'after',
      `
  Deltas are B − A. A cell is worse when its pass rate fell; one cell is noise-prone, so the verdict
  comes from a paired sign-flip test over the tasks both runs scored ('A better', 'B better' or
  'not separated').

  Example:
    crucible compare 20261130-0917 20261201-1002`,
    )
    .action(async (a: string, b: string, opts) => (await import('./commands/compare.js')).compareCommand(a, b, opts, io));

  program
    .command('baseline')
    .description('Save a run as a baseline file to commit (and gate against later), or show one.')
    .addCommand(
      new Command('save')
        .description("Write a run's outcomes per (task, task version, agent) as deterministic JSON, meant to be committed.")
        .argument('<run-id>', 'run id or unique prefix (see `crucible history --runs`)')
        .option('--out <file>', 'the baseline file to write', 'baseline.json')
        .option('--state-dir <dir>', "Crucible's state directory the run is in", '.crucible')
        .addHelpText(
          'after',
          `
  The file has sorted keys, paths relative to itself and one timestamp (createdAt), so saving the
  same run twice differs only there. Its format: schema/baseline.schema.json.

  Example:
    crucible baseline save 20261130-0917 --out baselines/main.json`,
        )
        .action(async (runId: string, opts) => (await import('./commands/baseline.js')).baselineSaveCommand(runId, opts, io)),
    )
    .addCommand(
      new Command('show')
        .description('Show what a baseline file holds: agents, tasks and versions, outcomes.')
        .argument('<file>', 'a baseline file')
        .addOption(jsonOption('print the file as checked JSON'))
        .action(async (file: string, opts) => (await import('./commands/baseline.js')).baselineShowCommand(file, opts, io)),
    );

  program
    .command('gate')
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
    .action(async (taskset: string, opts) => (await import('./commands/gate.js')).gateCommand(taskset, opts, io));
  addModelOptions(program.commands.find((c) => c.name() === 'gate') as Command);

  program
    .command('view')
    .description('Serve the dashboard: runs, attempts (diff, trajectory, tests), comparisons and trends, from the history.')
    .option('-p, --port <n>', 'port to listen on (0: any free port)', '4317')
    .option('--host <address>', 'address to bind; anything but loopback exposes your runs to the network', '127.0.0.1')
    .addOption(stateDirOption("Crucible's state directory (where history.db and runs/ are)"))
    .addHelpText(
      'after',
      `
  The server is read-only and serves nothing outside the state directory.

  Example:
    crucible view --port 8080`,
    )
    .action(async (opts) => (await import('./commands/view.js')).viewCommand(opts, io));

  program
    .command('schema')
    .description('Write the JSON Schema of the task-set format, or of another file Crucible reads (for editor completion and linting).')
    .argument(
      '[which]',
      'taskset (default), agents, suite, ci (crucible.ci.yaml), baseline, registry (registry.yaml), trust (pack --trust) or pack-index (pack --index)',
    )
    .option('-o, --out <file>', 'write to this file instead of stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  crucible schema --out taskset.schema.json\n  then start a task-set file with: # yaml-language-server: $schema=./taskset.schema.json\n  crucible schema agents --out agents.schema.json\n  crucible schema registry --out registry.schema.json',
    )
    .action(async (which: string | undefined, opts) => (await import('./commands/schema.js')).schemaCommand(which, opts, io));

  const importCommand = program
    .command('import')
    .description('Turn a published benchmark format into a Crucible task set: swe-bench, harbor.')
    .addHelpText(
      'after',
      `
  Examples:
    crucible import swe-bench swe-bench-verified.jsonl --ids psf__requests-2317 -o swe
    crucible validate swe/tasks.yaml --sandbox docker
    examples/swe-bench/make-repo.sh /tmp/mirrors   # the bundled sample, offline:
    crucible import swe-bench examples/swe-bench/instances.jsonl --repos /tmp/mirrors --environment none -o sample
    crucible validate sample/tasks.yaml
    crucible import harbor examples/harbor/hello-file -o imported-harbor
    crucible validate imported-harbor/tasks.yaml --sandbox docker`,
    );
  // .command() (not addCommand) so the subcommand inherits exitOverride: a usage error exits 2, not 1.
  importCommand
    .command('swe-bench')
    .description(
      'One task per SWE-bench instance (JSON Lines or a JSON array): problem statement, gold patch as oracle, test patch applied only at evaluation.',
    )
    .argument('<instances>', 'instances file: .jsonl (one instance per line) or .json (an array)')
    .requiredOption('-o, --out <dir>', 'directory to write the task set into (tasks.yaml, instructions/, oracle/)')
    .option('--ids <list>', 'only these instance ids, comma-separated')
    .option('--repos <dir>', 'local git mirrors named <owner>__<name> (default: clone https://github.com/<repo>.git)')
    .addOption(
      new Option('--environment <kind>', "image: SWE-bench's published instance image (pull: missing); none: the host toolchain (bwrap, local)")
        .choices(['image', 'none'])
        .default('image'),
    )
    .option('--dockerfile <file>', 'run every task in an image built from this Dockerfile instead (copied to <out>/env/)')
    .option('--strict', 'refuse an instance with a test id that can never match (absolute path, cut-off parameters, duplicate) instead of leaving the id out')
    .option('--force', 'write into an output directory that is not empty')
    .action(async (file: string, opts) => (await import('./commands/import.js')).importSweBenchCommand(file, opts, io));
  importCommand
    .command('harbor')
    .description(
      "One task per Harbor task directory (task.toml, instruction.md, environment/, solution/solve.sh, tests/test.sh) or Terminal-Bench's task.yaml layout: the oracle as a script, the tests as a reward verifier.",
    )
    .argument('<task-dir...>', 'task directories, or one dataset NAME@VERSION (docs/datasets.md)')
    .requiredOption('-o, --out <dir>', 'directory to write the task set into (tasks.yaml and one directory per task)')
    .option('--force', 'write into an output directory that is not empty')
    .option('--registry <file|url>', registryHelp)
    .option('--state-dir <dir>', "with a dataset name: Crucible's state directory, where the dataset is kept once imported", '.crucible')
    .action(async (dirs: string[], opts) => (await import('./commands/import.js')).importHarborCommand(dirs, opts, io));

  program
    .command('agents')
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
        .action(async (opts) => (await import('./commands/agents.js')).agentsListCommand(opts, io)),
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
        .action(async (names: string[], opts) => (await import('./commands/agents.js')).agentsInstallCommand(names, opts, io)),
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
        .action(async (agent: string, opts) => (await import('./commands/agents.js')).agentsCheckCommand(agent, opts, io)),
    );

  program
    .command('audit')
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
    .action(async (input: string, opts) => (await import('./commands/audit.js')).auditCommand(input, opts, io));

  program
    .command('manifest')
    .description("Check a run's execution manifests: what ran, and the SHA-256 of every artifact it kept.")
    .addCommand(
      new Command('verify')
        .description("Recompute every hash a run's manifests record, running nothing; print OK or one line per file that differs.")
        .argument('<run>', 'run id or unique prefix, or a run directory')
        .addOption(jsonOption('print the result as JSON'))
        .addOption(stateDirOption("Crucible's state directory"))
        .addHelpText(
          'after',
          `
  Each problem names its file, relative to the run directory: changed, missing, unexpected (a file
  the manifest does not list) or schema. Reports (report.md, report.html, …) are derived from the
  files the manifest covers and are not checked. See docs/evidence.md.

  Exit codes: 0 every hash matches, 1 something differs, 2 no such run.

  Examples:
    crucible manifest verify 20261201-1002
    crucible manifest verify .crucible/runs/20261201-1002 --json`,
        )
        .action(async (run: string, opts) => (await import('./commands/manifest.js')).manifestVerifyCommand(run, opts, io)),
    );

  // .command() (not addCommand) so the subcommands inherit exitOverride: a usage error exits 2.
  {
    const traceCommand = program
      .command('trace')
      .description("Check, replay and stress an attempt's hash-chained trace (trace.jsonl): offline, no agent, test, container or network.")
      .addHelpText(
        'after',
        `
  Every attempt records trace.jsonl: a header committing to a chain of hashed events (commands with
  sanitized argv, changed files with blob ids, test outcomes, check results, the verdict). See
  docs/evidence.md#traces.

  Examples:
    crucible trace verify 20261130-0917
    crucible trace replay 20261130-0917
    crucible trace metamorphic 20261130-0917/js-slugify.oracle.0`,
      );
    traceCommand
      .command('verify')
      .description("Check every event hash, the chain and the header of an attempt's trace (or of every attempt of a run).")
      .argument('<target>', 'an attempt directory, a run directory, <run-id> or <run-id>/<attempt-id>')
      .addOption(stateDirOption("Crucible's state directory the run is in"))
      .addOption(jsonOption('print the result as JSON'))
      .addHelpText(
        'after',
        `
  Exit codes: 0 every trace verifies, 1 one does not (the first bad line is named: file:line),
  2 bad input (no such attempt or run, no trace file, a trace that is a symlink).`,
      )
      .action(async (target: string, opts) => (await import('./commands/trace.js')).traceVerifyCommand(target, opts, io));
    traceCommand
      .command('replay')
      .description('Re-grade attempts from their traces with the registered checks and grade(), and compare with the recorded checks and verdict.')
      .argument('<target>', 'an attempt or run directory, <run-id> or <run-id>/<attempt-id>')
      .addOption(stateDirOption("Crucible's state directory the run is in"))
      .addOption(jsonOption('print every comparison as JSON'))
      .addHelpText(
        'after',
        `
  Runs no agent, no test, no container and no network: the evidence is the trace's. A trace that
  does not verify is a mismatch. Prints the match rate.

  Exit codes: 0 every attempt matches, 1 some check or verdict differs (or a trace fails), 2 bad input.`,
      )
      .action(async (target: string, opts) => (await import('./commands/trace.js')).traceReplayCommand(target, opts, io));
    traceCommand
      .command('metamorphic')
      .description("Apply a catalogue of transformations to a copy of one attempt's trace and check the grader reacts as it must.")
      .argument('<attempt>', 'an attempt directory or <run-id>/<attempt-id>')
      .addOption(stateDirOption("Crucible's state directory the run is in"))
      .addOption(jsonOption('print the report as JSON'))
      .addHelpText(
        'after',
        `
  Transformations that must not change the verdict (reorder commands or changed files, rename an
  unrelated file), that must (touch a test file, add a forbidden path, drop a passing fail-to-pass
  test) and that must be rejected by verification (edit, drop, swap or cut events without
  re-hashing). Nothing is written; a transformation that does not apply is reported as skipped.

  Exit codes: 0 every applicable transformation behaved as expected, 1 one did not (or the trace
  does not verify or replay as recorded), 2 bad input.`,
      )
      .action(async (target: string, opts) => (await import('./commands/trace.js')).traceMetamorphicCommand(target, opts, io));
  }

  const packExit = `
  Exit codes: 0 OK, 1 verification failed (a file's hash, the manifest, the archive digest or the
  signatures do not check out: the pack is not what it claims), 2 bad input (a malformed or hostile
  archive: unsafe paths, symlinks out, devices, duplicates, zip bombs, schema errors; bad arguments).`;
  program
    .command('pack')
    .description('Benchmark packs: one verifiable zip holding a task set and its repos (docs/packs.md).')
    .addCommand(
      new Command('create')
        .description('Pack a task set, its repos and the files it names into a normalized zip (same input, same bytes).')
        .argument('<taskset>', 'task-set YAML file')
        .requiredOption('-o, --out <file>', 'the pack to write, e.g. bench.crucible.zip')
        .addHelpText(
          'after',
          `\nRepos go under repos/ (a local git repo as its files at the task's commit), other files under files/,\nthe task set is rewritten to those paths as tasks.yaml. npm sources and remote git repos cannot be packed.\n${packExit}`,
        )
        .action(async (taskset: string, opts) => (await import('./commands/pack.js')).packCreateCommand(taskset, opts, io)),
    )
    .addCommand(
      new Command('verify')
        .description('Check a pack without extracting it: paths, modes, sizes, hashes, the task set, and signatures under --trust.')
        .argument('<zip>', 'the pack')
        .option('--trust <file>', 'trust policy YAML (trusted_keys, required); the pack must carry enough trusted signatures')
        .option('--signatures <file>', 'signature file to read (repeatable; default <zip>.sig.json)', collect)
        .addHelpText('after', packExit)
        .action(async (zip: string, opts) => (await import('./commands/pack.js')).packVerifyCommand(zip, opts, io)),
    )
    .addCommand(
      new Command('import')
        .description('Verify a pack, then extract it into a new directory; prints the task set to run. Nothing is run from it.')
        .argument('<zip>', 'the pack')
        .argument('<dest>', 'a directory that does not exist yet')
        .option('--trust <file>', 'trust policy YAML; enforced before anything is written')
        .option('--signatures <file>', 'signature file to read (repeatable; default <zip>.sig.json)', collect)
        .addHelpText('after', packExit)
        .action(async (zip: string, dest: string, opts) => (await import('./commands/pack.js')).packImportCommand(zip, dest, opts, io)),
    )
    .addCommand(
      new Command('sign')
        .description("Sign a verified pack's root digest with an Ed25519 key, into a detached <zip>.sig.json (signatures accumulate).")
        .argument('<zip>', 'the pack')
        .requiredOption('--key <file>', 'private key PEM from crucible keys generate')
        .option('-o, --out <file>', 'signature file (default <zip>.sig.json)')
        .addHelpText('after', packExit)
        .action(async (zip: string, opts) => (await import('./commands/pack.js')).packSignCommand(zip, opts, io)),
    )
    .addCommand(
      new Command('install')
        .description('Find NAME[@VERSION] in a local index, check its archive digest, verify (and trust), import; prints the task set to run.')
        .argument('<spec>', 'NAME@VERSION, or NAME for the highest version')
        .requiredOption('--index <file>', 'index YAML/JSON: packs: [{name, version, path, sha256, signatures}]')
        .option('--trust <file>', 'trust policy YAML; enforced before anything is written')
        .option('-o, --out <dir>', 'a new directory to import into (default ./NAME-VERSION)')
        .addHelpText(
          'after',
          `${packExit}\n\nExample:\n  crucible run "$(crucible pack install examples@1.0.0 --index packs/index.yaml --trust trust.yaml)" --agent oracle`,
        )
        .action(async (spec: string, opts) => (await import('./commands/pack.js')).packInstallCommand(spec, opts, io)),
    );

  program
    .command('keys')
    .description('Signing keys for benchmark packs (Ed25519).')
    .addCommand(
      new Command('generate')
        .description('Write a new Ed25519 key pair: <id>.key.pem (mode 0600) and <id>.pub.pem; prints the id and a trust-policy entry.')
        .option('-o, --out <dir>', 'directory for the key files', '.')
        .addHelpText('after', '\nExit codes: 0 written, 2 the directory cannot be written.')
        .action(async (opts) => (await import('./commands/keys.js')).keysGenerateCommand(opts, io)),
    );

  const diagnostics = program
    .command('diagnostics')
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
    );
  const auditOptions = (command: Command): Command =>
    command
      .option('--catalog <file>', 'a catalogue YAML file instead of the shipped one (docs/diagnostics.md#the-catalogue-format)')
      .addOption(sandboxOption("where the fixtures' tests run (default: bwrap when available)", ['bwrap', 'local']))
      .option('--concurrency <n>', 'entries evaluated at once', '2')
      .addOption(stateDirOption("Crucible's state directory (reports go to <out>/diagnostics/<kind>/<id>/)"))
      .addOption(jsonOption('print report.json on stdout; the summary goes to stderr'));
  auditOptions(
    diagnostics
      .command('mutations')
      .description(
        'Apply a catalogue of known tampering and policy violations (and safe changes) to fixture repos, without any agent, and check that the checks catch each one and nothing else.',
      )
      .option('--disable-check <id>', 'judge without this check, as if it did not exist (repeatable)', collect),
  )
    .addHelpText(
      'after',
      `
  Every entry runs the real test guard, diff, secret scan, test run (sandboxed) and checks once.
  Exit codes: 0 every expected detection made and no false alarm, 1 a miss, a false alarm on a safe
  entry or an unexpected detection, 2 bad input (a bad catalogue file names file, line and field).`,
    )
    .action(async (opts) => (await import('./commands/diagnostics.js')).mutationsCommand(opts, io));
  auditOptions(
    diagnostics
      .command('ablation')
      .description('Run the catalogue once and judge it again with each check removed: what each check alone detects, and what another check covers.'),
  )
    .addHelpText(
      'after',
      `
  Exit codes: 0 the control (every check) is valid and contributions are reported, 1 the control has
  a miss or a false alarm (no contribution is claimed), 2 bad input.`,
    )
    .action(async (opts) => (await import('./commands/diagnostics.js')).ablationCommand(opts, io));
  diagnostics
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
        .action(async (opts) => (await import('./commands/diagnostics-fuzz.js')).fuzzCommand(opts, io)),
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
        .action(async (opts) => (await import('./commands/diagnostics-matrix-stress.js')).matrixStressCommand(opts, io)),
    );

  program
    .command('worker')
    .description('Run attempts for distributed runs (`crucible run --queue`) from a Redis queue, until stopped.')
    .requiredOption('--queue <url>', 'the Redis the coordinators use, e.g. redis://127.0.0.1:6379/0 (a password goes in CRUCIBLE_QUEUE_PASSWORD)')
    .addOption(concurrencyOption('attempts this worker runs at once (default 1)'))
    .addOption(sandboxOption('where agents and tests run on this machine: bwrap (default on Linux), local, or docker'))
    .addOption(stateDirOption("this worker's state directory (shipped task sets, scratch attempts, caches)"))
    .option('--lock-ms <ms>', "a job's lock: a killed worker's job goes to another worker after about this long (default 30000)")
    .addHelpText(
      'after',
      `
  The worker serves every run registered on the queue: it fetches the run's task set from Redis
  (every file checked against its SHA-256), runs each attempt with the same engine as a local run,
  and sends the attempt's files back by hash. Model keys are read from this machine's environment
  by the worker's own gateway; nothing from the environment is written to Redis.

  Ctrl-C or SIGTERM stops taking jobs and finishes the running attempts; a second one aborts them
  (their jobs run again elsewhere once their lock expires).

  Exit codes: 0 stopped, 2 bad input (a bad --queue URL, no Redis answering, no sandbox).

  Examples:
    crucible worker --queue redis://127.0.0.1:6379
    crucible worker --queue redis://queue.internal:6379/2 --concurrency 4 --sandbox docker`,
    )
    .action(async (opts) => (await import('./commands/worker.js')).workerCommand(opts, io));

  inheritSettings(program);
  return {
    command: program,
    async run(args) {
      try {
        await program.parseAsync([...args], { from: 'user' });
        return EXIT.ok;
      } catch (error) {
        // --help and --version end here with code 0; usage errors are bad input.
        if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.badInput;
        return handleError(error, io);
      }
    },
  };
}

/** Commander's output (help, usage errors, --version) goes to io's streams, wrapped at its width. */
function outputTo(io: CliIo): OutputConfiguration {
  return {
    writeOut: (text) => void io.stdout.write(text),
    writeErr: (text) => void io.stderr.write(text),
    getOutHelpWidth: () => io.stdout.columns ?? 80,
    getErrHelpWidth: () => io.stderr.columns ?? 80,
    getOutHasColors: () => false,
    getErrHasColors: () => false,
  };
}

/**
 * Subcommands made with `new Command()` and addCommand do not inherit their parent's settings:
 * without this a usage error in `pack create` would print to the real process and exit it (1)
 * instead of ending as bad input (2) through io.
 */
function inheritSettings(command: Command): void {
  for (const sub of command.commands) {
    sub.copyInheritedSettings(command);
    inheritSettings(sub);
  }
}
