import { Command } from 'commander';
import { collect, jsonOption, sandboxOption, stateDirOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible mine`: its options, arguments and help; the action is imported only when it runs. */
export function defineMine(io: CliIo): Command {
  return new Command('mine')
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
    .action(async (repo: string | undefined, opts) => (await import('./mine.js')).mineCommand(repo, opts, io));
}
