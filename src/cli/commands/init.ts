import { relative } from 'node:path';
import pc from 'picocolors';
import { initRepo, INIT_PLACEHOLDER_ID } from '../../authoring/init.js';
import type { SandboxKind } from '../../sandbox/executor.js';
import { testsCommand } from './tests.js';

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
export async function initCommand(dir: string | undefined, opts: InitCommandOptions): Promise<void> {
  const result = initRepo(dir ?? '.', opts.testCommand === undefined ? {} : { testCommand: opts.testCommand });
  const shown = (f: string): string => relative(process.cwd(), f) || f;
  process.stdout.write(`${pc.bold('test runner')} ${result.runner.runner}: ${result.runner.command} ${pc.dim(`(${result.runner.evidence})`)}\n`);
  for (const file of result.files) process.stdout.write(`wrote ${shown(file)}\n`);
  if (result.oracle) process.stdout.write(`the uncommitted change is the task's oracle patch (${shown(result.oracle)})\n`);
  if (result.testChanges.length > 0)
    process.stdout.write(
      `${pc.yellow('note')} changed test files are not in the oracle: commit them (${result.testChanges.join(', ')}) so the baseline has them\n`,
    );
  const tasks = shown(result.files.find((f) => f.endsWith('crucible.tasks.yaml')) as string);
  if (opts.tests !== false) {
    process.stdout.write('\n');
    await testsCommand(tasks, {
      task: result.taskId,
      out: opts.out,
      ...(opts.sandbox ? { sandbox: opts.sandbox } : {}),
      ...(result.oracle ? { suggest: true } : {}),
    });
  }
  process.stdout.write(
    `\nNext: replace "${INIT_PLACEHOLDER_ID}" in ${tasks} with a test id above and write the instruction, then\n  crucible ${result.oracle ? 'validate' : 'tests'} ${tasks}${result.oracle ? '' : ` --task ${result.taskId}`}\n`,
  );
}
