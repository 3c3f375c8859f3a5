import { Command } from 'commander';
import { collect, jsonOption, quietOption, sandboxOption, stateDirOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible ci`: its options, arguments and help; the action is imported only when it runs. */
export function defineCi(io: CliIo): Command {
  return new Command('ci')
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
    .action(async (opts) => (await import('./ci.js')).ciCommand(opts, io));
}
