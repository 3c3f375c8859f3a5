import { relative } from 'node:path';
import pc from 'picocolors';
import { askForMissing, checkRequest, defaultTestCommand, scaffoldTask, type ScaffoldRequest, type ScaffoldResult } from '../../features/authoring/index.js';
import { InputError } from '../../core/errors.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import { writableStateDir } from '../args.js';
import { chooseSandbox } from '../sandbox-choice.js';
import { validateCommand } from './validate.js';
import type { CliIo } from '../io.js';
import { EXIT, exitWith } from '../exit.js';
import { openSession } from '../../engine/index.js';

export interface TaskNewOptions {
  id?: string;
  repo?: string;
  fromCommits?: string;
  testPaths?: string[];
  testCommand?: string;
  junit?: string;
  setup?: string[];
  force?: boolean;
  /** `--no-validate` sets it false. */
  validate?: boolean;
  runs?: string;
  out: string;
  sandbox?: SandboxKind;
}

/**
 * `crucible task new`: scaffolds a task from a fix in a git history (the work is
 * src/features/authoring/scaffold.ts), then validates it as `crucible validate --task ID` does.
 * Values the flags leave out are asked for when stdin is a terminal; otherwise they are bad input.
 * Exit 0 written and valid, 1 written but not valid (or flaky), 2 bad input (nothing written),
 * 130 interrupted.
 */
export async function taskNewCommand(taskSet: string, opts: TaskNewOptions, io: CliIo): Promise<void> {
  const needsTestCommand = opts.testCommand === undefined && (await defaultTestCommand(taskSet)) === undefined;
  let given: Partial<ScaffoldRequest> = {
    ...(opts.id !== undefined ? { id: opts.id } : {}),
    ...(opts.repo !== undefined ? { repo: opts.repo } : {}),
    ...(opts.fromCommits !== undefined ? { fromCommits: opts.fromCommits } : {}),
    ...(opts.testCommand !== undefined ? { testCommand: opts.testCommand } : {}),
  };
  const missing = !given.id || !given.repo || !given.fromCommits || needsTestCommand;
  if (missing && io.prompt !== undefined) {
    given = { ...given, ...(await askForMissing(given, io.prompt, { needsTestCommand })) };
  }
  checkRequest(given);
  if (needsTestCommand && given.testCommand === undefined) {
    throw new InputError(
      `--test-command: missing, and ${taskSet} has no defaults.tests.command (fix: give the command that runs the tests and writes JUnit XML to $CRUCIBLE_JUNIT, e.g. --test-command 'python3 -m pytest --junitxml="$CRUCIBLE_JUNIT"')`,
    );
  }
  writableStateDir('--out', opts.out, io.cwd);
  const request: ScaffoldRequest = {
    taskSet,
    id: given.id as string,
    repo: given.repo as string,
    fromCommits: given.fromCommits as string,
    ...(given.testCommand !== undefined ? { testCommand: given.testCommand } : {}),
    ...(opts.testPaths?.length ? { testPaths: opts.testPaths } : {}),
    ...(opts.junit !== undefined ? { junit: opts.junit } : {}),
    ...(opts.setup?.length ? { setup: opts.setup } : {}),
    force: opts.force === true,
  };
  // The tests run the repository's own code, as the oracle reference agent's do: the same fallback rule.
  const sandbox = await chooseSandbox(io, opts.sandbox, ['oracle']);

  const session = openSession(io.signals);
  let result: ScaffoldResult;
  try {
    result = await scaffoldTask(request, {
      stateDir: opts.out,
      sandbox,
      signal: session.stop,
      onProgress: (step) => io.stderr.write(`${pc.dim(step)}\n`),
      onRunOutput: (tail) => io.stderr.write(`${pc.dim(tail)}\n`),
    });
  } catch (error) {
    if (!session.interrupted) throw error;
    io.stderr.write(`${pc.yellow('interrupted')} nothing was written\n`);
    exitWith(EXIT.interrupted);
    return;
  } finally {
    session.close();
  }
  io.stdout.write(formatScaffold(request, result, io));
  if (opts.validate === false) {
    io.stdout.write(`${pc.dim(`not validated (--no-validate): run crucible validate ${taskSet} --task ${request.id}`)}\n`);
    return;
  }
  await validateCommand(taskSet, { task: [request.id], out: opts.out, sandbox, ...(opts.runs !== undefined ? { runs: opts.runs } : {}) }, io);
}

export function formatScaffold(request: ScaffoldRequest, r: ScaffoldResult, io: CliIo): string {
  const where = relative(io.cwd, r.file) || r.file;
  const verb = r.replaced ? 'replaced' : 'added';
  const s = r.suggestion;
  const p2p =
    r.passToPass === 'all_others' ? `all_others (${s.passToPass.length} test id${s.passToPass.length === 1 ? '' : 's'})` : `${r.passToPass.length} listed`;
  const lines = [
    `${pc.green(verb)} task ${pc.bold(request.id)} ${r.created ? 'in a new task set' : 'to'} ${where}${r.how === 'document' ? pc.yellow(' (the file was re-laid out by the YAML library; comments kept)') : ''}`,
    `  repo          ${r.repoDir}/  (the files of ${r.range.from.slice(0, 12)}, with ${r.split.tests.length} test file${r.split.tests.length === 1 ? '' : 's'} from ${r.range.to.slice(0, 12)})`,
    `  oracle        ${r.oraclePatch}  (${r.split.source.length} file${r.split.source.length === 1 ? '' : 's'})`,
    `  fail_to_pass  ${s.failToPass.join(', ')}`,
    `  pass_to_pass  ${p2p}`,
    ...(s.duplicated.length > 0
      ? [pc.yellow(`  left out, reported by more than one case: ${s.duplicated.slice(0, 5).join(', ')}${s.duplicated.length > 5 ? ', …' : ''}`)]
      : []),
    pc.yellow('  instruction   a TODO stub drafted from the commit messages: rewrite it before running agents'),
  ];
  return `${lines.join('\n')}\n`;
}
