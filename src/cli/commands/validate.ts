import { join, relative, resolve } from 'node:path';
import pc from 'picocolors';
import { resolveAgent } from '../../agents/index.js';
import { ATTACKS, attacksFor, findAttack, type Attack } from '../../agents/registry.js';
import { InputError } from '../../errors.js';
import { loadTaskSet } from '../../config/index.js';
import { defaultConcurrency, executeRun, expandPlan, newRunId, runAttempt, runsDirOf, schedule, type AttemptEnv, type RunOutcome } from '../../engine/index.js';
import { selectTasks } from '../../tasks/index.js';
import { createProgress } from '../progress.js';
import { withFlagNames } from '../option-flags.js';
import { chooseSandbox } from '../sandbox-choice.js';
import { formatTaskErrors } from './run.js';
import { judgeTaskValidity, type TaskValidity } from '../../grading/index.js';
import { judgeAttack, judgeTaskAdversarial, type AttackReport, type TaskAdversarial } from '../../grading/validity.js';
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
 * `crucible validate`: per task one `nop` attempt and --runs `oracle` attempts, through the
 * engine's run (preflight, checkpoint, lock: the same pipeline as `run`) in `<out>/validate/`,
 * judged by grading/validity.ts. The run's preflight reports broken tasks (a fail-to-pass id the
 * tests do not report, an oracle patch that does not apply, a repo that cannot be fetched) before
 * any attempt. Per-attempt baseline test runs are off: the nop attempt is the baseline.
 * Exit 0 when every task is valid, 1 when some is invalid or flaky, 2 when some task is broken.
 */
export async function validateCommand(tasksetPath: string, opts: ValidateCommandOptions): Promise<void> {
  if (opts.adversarial) return adversarialCommand(tasksetPath, opts);
  if (opts.attack?.length) throw new InputError('--attack: only with --adversarial (fix: add --adversarial)');
  const runs = wholeNumber('--runs', opts.runs, 3);
  const concurrency = wholeNumber('--concurrency', opts.concurrency, defaultConcurrency());
  const taskSet = loadTaskSet(tasksetPath);
  const tasks = withFlagNames(() => selectTasks(taskSet.tasks, { taskIds: opts.task }, tasksetPath));
  const agents = ['nop', 'oracle'];
  const sandbox = await chooseSandbox(opts.sandbox, agents);

  // Full results as they are recorded: the outcome's copies are slimmed, and validity reads the failing ids.
  const results: AttemptResult[] = [];
  const progress = createProgress({ stream: process.stderr });
  const stop = new AbortController();
  const onSigint = (): void => stop.abort();
  process.once('SIGINT', onSigint);
  let outcome: RunOutcome;
  try {
    outcome = await withFlagNames(() =>
      executeRun({
        kind: 'validate',
        taskSetFile: relative(process.cwd(), taskSet.file) || taskSet.file,
        taskSetPath: taskSet.file,
        tasks,
        taskIndex: new Map(taskSet.tasks.map((t, i) => [t.id, i])),
        selection: { taskIds: opts.task },
        agents,
        trials: runs,
        // One nop attempt is the baseline; the oracle runs --runs times to catch a flaky task.
        agentTrials: { nop: 1 },
        stateDir: opts.out,
        settings: { sandbox, baselineTests: false },
        concurrency,
        signal: stop.signal,
        killSignal: stop.signal,
        // Validation is not a measurement of agents: it stays out of the history's statistics.
        history: false,
        observer: { ...progress, onAttemptDone: (r) => (progress.onAttemptDone?.(r), results.push(r)) },
      }),
    );
  } finally {
    progress.close();
    process.off('SIGINT', onSigint);
  }
  const aborted = outcome.summary.ended === 'interrupted';
  const runDir = outcome.runDir;
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
    if (outcome.taskErrors.length > 0) process.stdout.write(`\n${formatTaskErrors(outcome.taskErrors)}\n`);
    const bad = validity.filter((v) => v.status !== 'valid').length;
    process.stdout.write(`\n${bad === 0 ? pc.green(`all ${validity.length} tasks valid`) : pc.red(`${bad} of ${validity.length} tasks not valid`)}  ${pc.dim(`evidence in ${relative(process.cwd(), runDir) || runDir}`)}\n`);
  }
  // A broken task is bad input (exit 2, like `run`); a task that is merely invalid or flaky is 1.
  process.exitCode = aborted ? 130 : outcome.taskErrors.length > 0 ? 2 : valid ? 0 : 1;
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
  const { taskSet, tasks, sandbox, id, runDir, stateDir } = await setUp(tasksetPath, opts, attackNamesOf(opts));
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

/** What the adversarial validation starts from: the task set, the selected tasks, a sandbox, a run directory. */
async function setUp(tasksetPath: string, opts: ValidateCommandOptions, agents: readonly string[]) {
  const taskSet = loadTaskSet(tasksetPath);
  const tasks = withFlagNames(() => selectTasks(taskSet.tasks, { taskIds: opts.task }, tasksetPath));
  const sandbox = await chooseSandbox(opts.sandbox, agents, 'attack');
  const stateDir = resolve(opts.out);
  const id = newRunId();
  return { taskSet, tasks, sandbox, id, stateDir, runDir: join(runsDirOf(stateDir, 'validate'), id) };
}

/** The attacks an adversarial validation may run. */
function attackNamesOf(opts: ValidateCommandOptions): string[] {
  return opts.attack?.length ? opts.attack : ATTACKS.map((a) => a.name);
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
