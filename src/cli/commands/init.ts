import { execFileSync } from 'node:child_process';
import pc from 'picocolors';
import { initRepo, INIT_PLACEHOLDER_ID } from '../../features/authoring/index.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import { testsCommand } from './tests.js';
import { shownPath, type CliIo } from '../io.js';

export interface InitCommandOptions {
  testCommand?: string;
  out: string;
  sandbox?: SandboxKind;
  /** False with `--no-tests`: write the files without running the tests. */
  tests?: boolean;
}

/**
 * `crucible init [dir]`: writes crucible.tasks.yaml and crucible.ci.yaml for the repository,
 * lists its tests at the baseline the way `crucible tests` does (with `--suggest` when the
 * uncommitted change became the oracle), and prints the next command.
 */
export async function initCommand(dir: string | undefined, opts: InitCommandOptions, io: CliIo): Promise<void> {
  const result = initRepo(dir ?? '.', opts.testCommand === undefined ? {} : { testCommand: opts.testCommand });
  const shown = (f: string): string => shownPath(io, f);
  io.stdout.write(`${pc.bold('test runner')} ${result.runner.runner}: ${result.runner.command} ${pc.dim(`(${result.runner.evidence})`)}\n`);
  for (const file of result.files) io.stdout.write(`wrote ${shown(file)}\n`);
  if (result.oracle) io.stdout.write(`the uncommitted change is the task's oracle patch (${shown(result.oracle)})\n`);
  if (result.testChanges.length > 0)
    io.stdout.write(`${pc.yellow('note')} changed test files are not in the oracle: commit them (${result.testChanges.join(', ')}) so the baseline has them\n`);
  if (!ignoredByGit(dir ?? '.', '.crucible/')) io.stdout.write(`${pc.dim("tip: add .crucible/ (Crucible's state directory) to .gitignore")}\n`);
  const tasks = shown(result.files.find((f) => f.endsWith('crucible.tasks.yaml')) as string);
  if (opts.tests !== false) {
    io.stdout.write('\n');
    await testsCommand(
      tasks,
      {
        task: result.taskId,
        out: opts.out,
        ...(opts.sandbox ? { sandbox: opts.sandbox } : {}),
        ...(result.oracle ? { suggest: true } : {}),
      },
      io,
    );
  }
  const oracleStep = result.oracle ? '' : ', add a known-good fix as oracle: { patch: FILE } (git diff > FILE)';
  io.stdout.write(
    `\nNext: in ${tasks}, replace "${INIT_PLACEHOLDER_ID}" with a test id above, write the instruction${oracleStep}, then\n  crucible validate ${tasks}\n`,
  );
}

function ignoredByGit(dir: string, path: string): boolean {
  try {
    execFileSync('git', ['check-ignore', '-q', '--no-index', path], { cwd: dir, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
