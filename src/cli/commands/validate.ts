import { join, relative, resolve } from 'node:path';
import pc from 'picocolors';
import { resolveAgent } from '../../agents/index.js';
import { ATTACKS, attacksFor, findAttack, type Attack } from '../../agents/registry.js';
import { InputError } from '../../errors.js';
import { loadTaskSet } from '../../config/index.js';
import { defaultConcurrency, expandPlan, newRunId, runAttempt, schedule, selectTasks, type AttemptEnv } from '../../engine/index.js';
import { judgeTaskValidity, type TaskValidity } from '../../grading/index.js';
import { judgeAttack, judgeTaskAdversarial, type AttackReport, type TaskAdversarial } from '../../grading/validity.js';
import { resolveSandbox } from '../../sandbox/index.js';
import type { SandboxKind } from '../../sandbox/executor.js';
import type { AttemptPlan, AttemptResult, Task } from '../../types/index.js';
import { wholeNumber } from '../args.js';
import { table } from '../format.js';

export interface ValidateCommandOptions {
  task?: string[];
  runs?: string;
  concurrency?: string;
  out: string;
  sandbox?: SandboxKind;
  json?: boolean;
  /** Run the attack catalogue instead of nop/oracle (docs/redteam.md). */
  adversarial?: boolean;
  /** With --adversarial: only these attacks (heavy ones run only when named). */
  attack?: string[];
}

export const VALIDATE_SCHEMA_VERSION = 1;

/**
 * `crucible validate`: per task one `nop` attempt and --runs `oracle` attempts, all through
 * runAttempt (the same pipeline as `run`), judged by grading/validity.ts. Baseline test runs are
 * off here: the nop attempt is the baseline. Exit 0 when every task is valid, 1 otherwise.
 */
export async function validateCommand(tasksetPath: string, opts: ValidateCommandOptions): Promise<void> {
  if (opts.adversarial) return adversarialCommand(tasksetPath, opts);
  if (opts.attack?.length) throw new InputError('--attack: only with --adversarial (fix: add --adversarial)');
  const runs = wholeNumber('--runs', opts.runs, 3);
  const concurrency = wholeNumber('--concurrency', opts.concurrency, defaultConcurrency());
  const { taskSet, tasks, sandbox, id, runDir, stateDir } = await setUp(tasksetPath, opts, true);
  const settings = { sandbox, baselineTests: false };
  const plan = expandPlan(id, tasks, ['nop', 'oracle'], runs, settings).attempts.filter((a) => a.agent === 'oracle' || a.trial === 0);
  const byIndex: AttemptResult[] = [];
  const aborted = await runPlan(plan, tasks, { runDir, stateDir, ...settings }, concurrency, (item, result) => {
    process.stderr.write(`${pc.dim(result.verdict.padEnd(5))} ${result.taskId} ${pc.dim(`${result.agent} #${result.trial}`)} ${pc.dim(result.cause)}\n`);
    byIndex[plan.indexOf(item)] = result;
  });

  const results = byIndex.filter((r) => r !== undefined);
  const validity = tasks.map((task) => {
    const mine = results.filter((r) => r.taskId === task.id);
    return judgeTaskValidity(task, mine.find((r) => r.agent === 'nop'), mine.filter((r) => r.agent === 'oracle'));
  });
  const valid = validity.every((v) => v.status === 'valid') && !aborted;
  if (opts.json) {
    const out = { schemaVersion: VALIDATE_SCHEMA_VERSION, taskSet: relative(process.cwd(), taskSet.file) || taskSet.file, runs, dir: runDir, valid, tasks: validity };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    process.stdout.write(`\n${formatValidity(validity, runs)}\n`);
    const bad = validity.filter((v) => v.status !== 'valid').length;
    process.stdout.write(`\n${bad === 0 ? pc.green(`all ${validity.length} tasks valid`) : pc.red(`${bad} of ${validity.length} tasks not valid`)}  ${pc.dim(`evidence in ${relative(process.cwd(), runDir) || runDir}`)}\n`);
  }
  process.exitCode = aborted ? 130 : valid ? 0 : 1;
}

export function formatValidity(validity: TaskValidity[], runs: number): string {
  const status = (v: TaskValidity): string => (v.status === 'valid' ? pc.green('valid') : v.status === 'flaky' ? pc.yellow('flaky') : pc.red('invalid'));
  const rows = validity.map((v) => [
    status(v),
    v.taskId,
    v.nop.failToPassTotal === undefined ? '-' : `fails ${v.nop.failToPassFailing}/${v.nop.failToPassTotal}`,
    `passes ${v.oracle.passed}/${v.oracle.runs || runs}`,
    v.heldOut ? `${v.heldOut.passed}/${v.heldOut.total}` : '-',
    [...v.problems, ...v.notes.map((n) => pc.dim(n))].join('; ') || pc.dim('ok'),
  ]);
  return table(['status', 'task', 'nop F2P', 'oracle', 'held-out', 'why'], rows);
}


/**
 * `crucible validate --adversarial`: every applicable attack of the catalogue (and the honest
 * controls) once per task, through runAttempt with baseline tests on, as `crucible run` grades.
 * Reports per task which attacks got through (PASS), turned into a harness error (ERROR) or, for
 * an honest control, failed. Exit 0 when none did, 1 otherwise.
 */
async function adversarialCommand(tasksetPath: string, opts: ValidateCommandOptions): Promise<void> {
  const concurrency = wholeNumber('--concurrency', opts.concurrency, defaultConcurrency());
  const names = opts.attack?.length ? opts.attack : undefined;
  const unknown = names?.find((n) => !findAttack(n));
  if (unknown !== undefined) throw new InputError(`--attack ${unknown}: no such attack (fix: use one of ${ATTACKS.map((a) => a.name).join(', ')})`);
  const { taskSet, tasks, sandbox, id, runDir, stateDir } = await setUp(tasksetPath, opts, false);
  const settings = { sandbox, baselineTests: true };
  const applicable = new Map(tasks.map((t) => [t.id, attacksFor(t, { ...(names ? { names } : {}) })]));
  const attackNames = [...new Set([...applicable.values()].flat().map((a) => a.name))];
  if (attackNames.length === 0) throw new InputError(`--adversarial: no attack applies to the selected tasks (attacks need pytest or node test commands)`);
  const plan = expandPlan(id, tasks, attackNames, 1, settings).attempts.filter((a) => applicable.get(a.taskId)?.some((x) => x.name === a.agent));
  const reports = new Map<string, AttackReport[]>();
  const aborted = await runPlan(plan, tasks, { runDir, stateDir, ...settings }, concurrency, (item, result) => {
    const attack = findAttack(item.agent) as Attack;
    const report = judgeAttack(attack, result);
    process.stderr.write(`${outcomeLabel(report)} ${result.taskId} ${pc.dim(`${attack.name} → ${result.verdict} ${result.cause}`)}\n`);
    reports.set(item.attemptId, [report]);
  });

  const judged: TaskAdversarial[] = tasks.map((task) =>
    judgeTaskAdversarial(
      task.id,
      plan.filter((p) => p.taskId === task.id).flatMap((p) => reports.get(p.attemptId) ?? []),
    ),
  );
  const secure = judged.every((t) => t.secure) && !aborted;
  if (opts.json) {
    const out = { schemaVersion: VALIDATE_SCHEMA_VERSION, adversarial: true, taskSet: relative(process.cwd(), taskSet.file) || taskSet.file, dir: runDir, secure, tasks: judged };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    process.stdout.write(`\n${formatAdversarial(judged)}\n`);
    const bad = judged.filter((t) => !t.secure);
    const lines = bad.map((t) => `  ${t.taskId}: ${[...(t.gotThrough.length ? [`got through: ${t.gotThrough.join(', ')}`] : []), ...(t.harnessErrors.length ? [`harness errors: ${t.harnessErrors.join(', ')}`] : []), ...(t.falseAlarms.length ? [`honest controls failed: ${t.falseAlarms.join(', ')}`] : [])].join('; ')}`);
    const head = bad.length === 0 ? pc.green(`no attack got through on ${judged.length} task${judged.length === 1 ? '' : 's'}`) : pc.red(`${bad.length} of ${judged.length} tasks let something through`);
    process.stdout.write(`\n${head}  ${pc.dim(`evidence in ${relative(process.cwd(), runDir) || runDir}`)}\n${lines.length ? `${lines.join('\n')}\n` : ''}`);
  }
  process.exitCode = aborted ? 130 : secure ? 0 : 1;
}

/** What both kinds of validation start from: the task set, the selected tasks, a sandbox, a run directory. */
async function setUp(tasksetPath: string, opts: ValidateCommandOptions, allowFallback: boolean) {
  const taskSet = loadTaskSet(tasksetPath);
  const tasks = selectTasks(taskSet.tasks, { taskIds: opts.task }, tasksetPath);
  const resolved = await resolveSandbox(opts.sandbox, { allowFallback });
  if (resolved.warning) process.stderr.write(`${pc.yellow('warning')} ${resolved.warning}\n`);
  const stateDir = resolve(opts.out);
  const id = newRunId();
  return { taskSet, tasks, sandbox: resolved.kind, id, stateDir, runDir: join(stateDir, 'validate', id) };
}

/** Runs `plan` through runAttempt with bounded concurrency until done or Ctrl-C; true when interrupted. */
async function runPlan(plan: AttemptPlan[], tasks: Task[], env: AttemptEnv, concurrency: number, onResult: (item: AttemptPlan, result: AttemptResult) => void): Promise<boolean> {
  const controller = new AbortController();
  const onSigint = (): void => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    await schedule(
      plan,
      concurrency,
      async (item) => {
        const task = tasks.find((t) => t.id === item.taskId) as Task;
        onResult(item, await runAttempt(item, task, resolveAgent(item.agent), { ...env, signal: controller.signal }));
      },
      () => controller.signal.aborted,
    );
  } finally {
    process.off('SIGINT', onSigint);
  }
  return controller.signal.aborted;
}

function outcomeLabel(r: AttackReport): string {
  switch (r.outcome) {
    case 'held':
    case 'control_passed':
      return pc.green(r.outcome.padEnd(17));
    case 'stopped_otherwise':
      return pc.yellow(r.outcome.padEnd(17));
    default:
      return pc.red(r.outcome.padEnd(17));
  }
}

export function formatAdversarial(tasks: TaskAdversarial[]): string {
  const rows = tasks.flatMap((t) => t.attacks.map((r) => [outcomeLabel(r).trimEnd(), t.taskId, r.attack, r.class, r.expected, `${r.verdict} ${r.cause}${r.limit ? ` (${r.limit})` : ''}`]));
  return table(['outcome', 'task', 'attack', 'class', 'expected', 'got'], rows);
}
