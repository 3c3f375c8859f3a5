import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import pc from 'picocolors';
import { stringify } from 'yaml';
import { fillTestIds } from '../../features/authoring/index.js';
import { runTaskTests, suggestTestIds, type ListedTest, type TaskTestSide, type TestSide } from '../../engine/index.js';
import { InputError } from '../../core/errors.js';
import { reportInstruction } from '../../domain/evidence/index.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import { loadRunInput } from '../../features/suite/index.js';
import { selectTasks, taskWhere } from '../../domain/tasks/index.js';
import { writableStateDir } from '../args.js';
import { withFlagNames } from '../option-flags.js';
import { shellPath } from '../next-steps.js';
import { chooseSandbox } from '../sandbox-choice.js';
import type { CliIo } from '../io.js';
import { EXIT, exitWith } from '../exit.js';
import { openSession } from '../../engine/index.js';

export interface TestsCommandOptions {
  /** Optional when the set has one task. */
  task?: string;
  at?: string;
  suggest?: boolean;
  /** With --suggest: write the suggested lists into the task's file. */
  write?: boolean;
  json?: boolean;
  out: string;
  sandbox?: SandboxKind;
}

export const TESTS_SCHEMA_VERSION = 1;

/** How many lines of a useless run's output are shown to say why. */
const OUTPUT_LINES = 20;

/**
 * `crucible tests`: the task's test ids as its test command reports them, at the baseline or with
 * the oracle applied, or (`--suggest`) both and the `fail_to_pass` / `pass_to_pass` they support.
 * The work is the engine's `runTaskTests`; this file reads the flags and prints.
 * Exit 0 listed, 1 the run gave no usable report, 2 bad input or a broken task, 130 interrupted.
 */
export async function testsCommand(tasksetPath: string, opts: TestsCommandOptions, io: CliIo): Promise<void> {
  writableStateDir('--out', opts.out, io.cwd);
  const input = loadRunInput(tasksetPath);
  const taskId = opts.task ?? onlyTaskId(input.tasks, tasksetPath);
  const [task] = withFlagNames(() => selectTasks(input.tasks, { taskIds: [taskId] }, tasksetPath));
  if (task === undefined) throw new InputError(`--task ${taskId}: no such task in ${tasksetPath}`);
  const where = taskWhere(task, input.taskIndex.get(task.id));
  // --suggest without an oracle reads the baseline alone; --at oracle has nothing to run.
  const sides = sidesOf(opts, task.oracle !== undefined);
  if (opts.write && !opts.suggest) throw new InputError('--write: only with --suggest, whose lists it writes (fix: add --suggest)');
  if (opts.write && !task.oracle) {
    throw new InputError(
      `${where.file}: ${where.prefix}: --write needs the oracle's side: without it, what fails at the baseline is only a candidate list (fix: add oracle: { patch: FILE }, or paste the ids by hand)`,
    );
  }
  if (sides.includes('oracle') && !task.oracle) {
    throw new InputError(
      `${where.file}: ${where.prefix}: task ${task.id} has no oracle patch; --at oracle runs the tests with it (fix: add oracle.patch to the task, or use --at baseline)`,
    );
  }
  // The task's own code runs here, as under the reference agents: the same fallback rule.
  const sandbox = await chooseSandbox(io, opts.sandbox, [sides.includes('oracle') ? 'oracle' : 'nop']);

  const session = openSession(io.signals);
  let runs: TaskTestSide[];
  try {
    runs = await runTaskTests(task, {
      stateDir: opts.out,
      sandbox,
      sides,
      where,
      signal: session.stop,
      onProgress: (step) => io.stderr.write(`${pc.dim(step)}\n`),
    });
  } catch (error) {
    if (!session.interrupted) throw error;
    io.stderr.write(`${pc.yellow('interrupted')}\n`);
    exitWith(EXIT.interrupted);
    return;
  } finally {
    session.close();
  }

  const unusable = runs.filter((r) => r.evidence.invalidReason !== undefined);
  const suggestion = opts.suggest && unusable.length === 0 ? suggestTestIds(runs[0]?.tests ?? [], runs[1]?.tests) : undefined;
  if (opts.json) {
    const out = {
      schemaVersion: TESTS_SCHEMA_VERSION,
      taskSet: relative(io.cwd, input.file) || input.file,
      taskId: task.id,
      sandbox,
      runs: runs.map((r) => ({
        at: r.at,
        command: r.evidence.command,
        exitCode: r.evidence.exitCode,
        parsed: r.evidence.parsed,
        consistent: r.evidence.consistent,
        ...(r.evidence.invalidReason !== undefined ? { invalidReason: r.evidence.invalidReason } : {}),
        tests: r.tests,
        duplicates: r.evidence.duplicates ?? null,
      })),
      ...(suggestion ? { suggestion } : {}),
    };
    io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else if (suggestion) {
    for (const run of runs) io.stderr.write(`${summaryLine(task.id, run)}\n`);
    io.stdout.write(formatSuggestion(suggestion, shellPath(tasksetPath)));
  } else {
    for (const run of runs) io.stdout.write(`${formatListing(task.id, run)}\n`);
  }
  for (const run of unusable) {
    const tail = run.evidence.outputTail.trimEnd().split('\n').slice(-OUTPUT_LINES).join('\n');
    io.stderr.write(
      `${pc.red('error')} ${where.file}: ${where.prefix}.tests.command: the run ${sideName(run.at)} gives no usable report (${run.evidence.invalidReason ?? ''}) ` +
        `(fix: run it in the repo and ${reportInstruction(task.tests)})\n${tail ? `${pc.dim(tail)}\n` : ''}`,
    );
  }
  if (opts.write && suggestion) {
    if (suggestion.failToPass.length === 0) {
      io.stderr.write(`${pc.red('not written')} ${where.file}: no test fails at the baseline and passes with the oracle\n`);
      exitWith(EXIT.failed);
      return;
    }
    const file = task.sourceFile;
    const passToPass = suggestion.allOthersAgrees ? 'all_others' : suggestion.passToPass;
    writeFileSync(file, fillTestIds(readFileSync(file, 'utf8'), where.file, task.id, { failToPass: suggestion.failToPass, passToPass }));
    const p2p = passToPass === 'all_others' ? 'all_others' : `${passToPass.length} ids`;
    io.stderr.write(`${pc.green('wrote')} ${relative(io.cwd, file) || file}: fail_to_pass (${suggestion.failToPass.length} ids), pass_to_pass (${p2p})\n`);
  }
  exitWith(unusable.length > 0 ? EXIT.failed : EXIT.ok);
}

/** The one task of a one-task set, so `--task` can be left out there. */
function onlyTaskId(tasks: readonly { id: string }[], tasksetPath: string): string {
  const [only, ...rest] = tasks;
  if (only !== undefined && rest.length === 0) return only.id;
  const ids = tasks.slice(0, 5).map((t) => t.id);
  throw new InputError(
    `--task: ${tasksetPath} has ${tasks.length} tasks (fix: pick one with --task ID${ids.length > 0 ? `: ${ids.join(', ')}${tasks.length > 5 ? ', …' : ''}` : ''})`,
  );
}

function sidesOf(opts: TestsCommandOptions, hasOracle: boolean): TestSide[] {
  if (opts.suggest) {
    if (opts.at !== undefined) throw new InputError(`--at ${opts.at}: not with --suggest, which runs both sides (fix: drop --at)`);
    return hasOracle ? ['baseline', 'oracle'] : ['baseline'];
  }
  const at = opts.at ?? 'baseline';
  if (at !== 'baseline' && at !== 'oracle') throw new InputError(`--at ${at}: not a side (fix: use --at baseline or --at oracle)`);
  return [at];
}

function sideName(at: TestSide): string {
  return at === 'baseline' ? 'at the baseline' : 'with the oracle applied';
}

const OUTCOME_COLORS: Record<ListedTest['outcome'], (s: string) => string> = {
  passed: pc.green,
  failed: pc.red,
  error: pc.red,
  skipped: pc.yellow,
};

function summaryLine(taskId: string, run: TaskTestSide): string {
  const counts = new Map<string, number>();
  for (const t of run.tests) counts.set(t.outcome, (counts.get(t.outcome) ?? 0) + 1);
  const parts = (['passed', 'failed', 'error', 'skipped'] as const).filter((o) => counts.has(o)).map((o) => `${counts.get(o)} ${o}`);
  const ids = `${run.tests.length} test id${run.tests.length === 1 ? '' : 's'}`;
  return `${pc.bold(taskId)} ${sideName(run.at)}: ${ids}${parts.length ? ` (${parts.join(', ')})` : ''}, exit ${run.evidence.exitCode ?? 'none'}`;
}

/** One line per id: its outcome, then the id exactly as fail_to_pass / pass_to_pass take it. */
export function formatListing(taskId: string, run: TaskTestSide): string {
  const lines = [summaryLine(taskId, run)];
  for (const t of run.tests) {
    const dup = t.cases > 1 ? pc.yellow(`  [duplicate id: ${t.cases} cases]`) : '';
    lines.push(`  ${OUTCOME_COLORS[t.outcome](t.outcome.padEnd(7))}  ${t.id}${dup}`);
  }
  const dups = run.evidence.duplicates;
  if (dups) {
    lines.push(
      pc.yellow(
        `${dups.cases} cases share ${dups.ids} id${dups.ids === 1 ? '' : 's'}: a listed fail_to_pass/pass_to_pass id must name one case (give those tests distinct names, or a reporter option that adds the file), and all_others counts each id once`,
      ),
    );
  }
  return lines.join('\n');
}

/** `taskSet` is the task-set path as the user can type it from where they stand: the hint's commands name it. */
export function formatSuggestion(s: ReturnType<typeof suggestTestIds>, taskSet: string): string {
  if (s.baselineOnly) {
    const notes = [
      `# No oracle patch: read from the baseline alone. ${s.failToPass.length} fail there (candidates: keep in fail_to_pass those the fix must make pass); ${s.passToPass.length} pass.`,
      `# Only an oracle proves them: add \`oracle: { patch: FILE }\` (a known-good fix, \`git diff > FILE\`), then \`crucible tests ${taskSet} --suggest\` compares both sides and \`crucible validate ${taskSet}\` checks the task.`,
      ...(s.allOthersAgrees && s.passToPass.length > 0 ? ['# `pass_to_pass: all_others` selects the same tests.'] : []),
      ...(s.duplicated.length > 0
        ? [`# Left out, reported by more than one case: ${s.duplicated.slice(0, 5).join(', ')}${s.duplicated.length > 5 ? ', …' : ''}`]
        : []),
      '# Paste under the task’s tests:',
    ];
    return `${notes.join('\n')}\n${stringify({ fail_to_pass: s.failToPass, pass_to_pass: s.passToPass })}`;
  }
  const notes = [
    `# ${s.failToPass.length} fail at the baseline and pass with the oracle; ${s.passToPass.length} pass on both.`,
    ...(s.failToPass.length === 0 ? ['# No test fails at the baseline and passes with the oracle: these tests cannot tell the fix from none.'] : []),
    ...(s.allOthersAgrees && s.passToPass.length > 0 ? ['# `pass_to_pass: all_others` selects the same tests.'] : []),
    ...(s.duplicated.length > 0
      ? [
          `# Left out, reported by more than one case (a listed id must be unique): ${s.duplicated.slice(0, 5).join(', ')}${s.duplicated.length > 5 ? ', …' : ''}`,
        ]
      : []),
    '# Paste under the task’s tests:',
  ];
  return `${notes.join('\n')}\n${stringify({ fail_to_pass: s.failToPass, pass_to_pass: s.passToPass })}`;
}
