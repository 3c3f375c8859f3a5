import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pc from 'picocolors';
import { fillTestIds, initRepo, INIT_PLACEHOLDER_ID, runInitTests, type InitRun } from '../../features/authoring/index.js';
import { suggestTestIds } from '../../engine/index.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import { writableStateDir } from '../args.js';
import { chooseSandbox } from '../sandbox-choice.js';
import { EXIT, exitWith } from '../exit.js';
import { openSession } from '../../engine/index.js';
import { formatListing, formatSuggestion } from './tests.js';
import { nextSteps, shellPath } from '../next-steps.js';
import { shownPath, type CliIo } from '../io.js';

export interface InitCommandOptions {
  testCommand?: string;
  out: string;
  sandbox?: SandboxKind;
  /** False with `--no-tests`: write the files without running the tests. */
  tests?: boolean;
}

/**
 * `crucible init [dir]`: writes crucible.tasks.yaml and crucible.ci.yaml for the repository, runs
 * its tests at the baseline (and with the uncommitted fix) with the report format confirmed by the
 * output (features/authoring/init-run.ts), lists the test ids, and prints the next commands as
 * they run from where the user stands. Exit 0 written and listed, 2 bad input (a file already
 * there, no runner, a run with no usable report: one line saying what the output looks like), 130
 * interrupted.
 */
export async function initCommand(dir: string | undefined, opts: InitCommandOptions, io: CliIo): Promise<void> {
  if (opts.tests !== false) writableStateDir('--out', opts.out, io.cwd);
  let result = initRepo(resolve(io.cwd, dir ?? '.'), opts.testCommand === undefined ? {} : { testCommand: opts.testCommand });
  const shown = (f: string): string => shownPath(io, f);
  io.stdout.write(`${pc.bold('test runner')} ${result.runner.runner}: ${result.runner.command} ${pc.dim(`(${result.runner.evidence})`)}\n`);
  for (const file of result.files) io.stdout.write(`wrote ${shown(file)}\n`);
  if (result.oracle) io.stdout.write(`the uncommitted change is the task's oracle patch (${shown(result.oracle)})\n`);
  if (result.testChanges.length > 0)
    io.stdout.write(`${pc.yellow('note')} changed test files are not in the oracle: commit them (${result.testChanges.join(', ')}) so the baseline has them\n`);
  if (!ignoredByGit(resolve(io.cwd, dir ?? '.'), '.crucible/'))
    io.stdout.write(`${pc.dim("tip: add .crucible/ (Crucible's state directory) to .gitignore")}\n`);
  const tasks = shellPath(shown(result.tasksFile));
  let failToPass: string[] = [];
  if (opts.tests !== false) {
    io.stdout.write('\n');
    const sandbox = await chooseSandbox(io, opts.sandbox, [result.oracle ? 'oracle' : 'nop']);
    const session = openSession(io.signals);
    let ran: InitRun;
    try {
      ran = await runInitTests(result, {
        stateDir: opts.out,
        sandbox,
        cwd: io.cwd,
        signal: session.stop,
        onProgress: (step) => io.stderr.write(`${pc.dim(step)}\n`),
      });
    } catch (error) {
      if (!session.interrupted) throw error;
      io.stderr.write(`${pc.yellow('interrupted')} the files are written; run crucible tests ${tasks} to list the ids\n`);
      exitWith(EXIT.interrupted);
      return;
    } finally {
      session.close();
    }
    result = ran.result;
    if (ran.switched !== undefined)
      io.stdout.write(`${pc.green('format')} the output is ${ran.switched}: wrote format: ${ran.switched} under tests: in ${tasks}\n`);
    const [baseline, oracle] = ran.runs;
    if (baseline) io.stdout.write(`${formatListing(result.taskId, baseline)}\n`);
    if (oracle) io.stdout.write(`${formatListing(result.taskId, oracle)}\n`);
    const suggestion = suggestTestIds(baseline?.tests ?? [], oracle?.tests);
    if (oracle && suggestion.failToPass.length > 0) {
      // Both sides ran: the lists are proved, not guessed, so they go straight into the file.
      failToPass = suggestion.failToPass;
      const passToPass = suggestion.allOthersAgrees ? 'all_others' : suggestion.passToPass;
      writeFileSync(result.tasksFile, fillTestIds(readFileSync(result.tasksFile, 'utf8'), tasks, result.taskId, { failToPass, passToPass }));
      io.stdout.write(`\n${pc.green('wrote')} fail_to_pass (${failToPass.join(', ')}) into ${tasks}\n`);
    } else io.stdout.write(`\n${formatSuggestion(suggestion, tasks)}`);
  }
  const steps = [
    ...(failToPass.length > 0 ? [] : [`# in ${tasks}, put in fail_to_pass a test id listed above that the fix must make pass`]),
    `# in ${tasks}, write the instruction: what is wrong and what "fixed" means${result.oracle ? '' : '; add a known-good fix as oracle: { patch: FILE } (git diff > FILE)'}`,
    `crucible validate ${tasks}`,
  ];
  io.stdout.write(`\n${nextSteps(steps, { tasks: 1, repo: dir === undefined ? '.' : shellPath(dir) })}`);
  if (failToPass.length === 0) io.stdout.write(`${pc.dim(`(validate names the placeholder "${INIT_PLACEHOLDER_ID}" as unknown until then)`)}\n`);
}

function ignoredByGit(dir: string, path: string): boolean {
  try {
    execFileSync('git', ['check-ignore', '-q', '--no-index', path], { cwd: dir, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
