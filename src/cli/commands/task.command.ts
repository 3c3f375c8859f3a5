import { Command } from 'commander';
import { collect, sandboxOption, stateDirOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible task`: its options, arguments and help; the action is imported only when it runs. */
export function defineTask(io: CliIo): Command {
  return new Command('task').description('Author tasks: `task new` scaffolds one from a fix in a git history.').addCommand(
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
      .action(async (taskset: string, opts) => (await import('./task.js')).taskNewCommand(taskset, opts, io)),
  );
}
