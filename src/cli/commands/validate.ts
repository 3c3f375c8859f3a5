import { relative } from 'node:path';
import pc from 'picocolors';
import { loadAgentCatalog } from '../../domain/agents/index.js';
import { ATTACKS, attacksFor, findAttack, type Attack } from '../../domain/redteam/index.js';
import { InputError } from '../../core/errors.js';
import { loadRunInput } from '../../features/suite/index.js';
import { defaultConcurrency, MAX_PLANNED_ATTEMPTS } from '../../engine/index.js';
import { selectTasks } from '../../domain/tasks/index.js';
import { withFlagNames } from '../option-flags.js';
import { chooseSandbox } from '../sandbox-choice.js';
import { formatTaskErrors } from '../run-report.js';
import { runValidationIn } from '../run-session.js';
import { judgeTaskValidity, type TaskValidity } from '../../domain/grading/index.js';
import { judgeAttack, judgeTaskAdversarial, type AttackReport, type TaskAdversarial } from '../../domain/grading/index.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import { wholeNumber, writableStateDir } from '../args.js';
import { table } from '../format.js';
import type { CliIo } from '../io.js';
import { exitWith, runExitCode } from '../exit.js';
import { resolveRunAgent } from '../../domain/redteam/index.js';
import { measureStrength, planStrength, summarizeTaskSet, writeStrengthFile, type TaskStrength } from '../../features/strength/index.js';
import { formatFlakeCell, formatStrengthCell, formatStrengthDetail, strengthFlags } from '../format-strength.js';

export interface ValidateCommandOptions {
  task?: string[];
  /** `--agents FILE`: agent profiles to check along with the task set. */
  agents?: string;
  runs?: string;
  concurrency?: string;
  out: string;
  sandbox?: SandboxKind;
  json?: boolean;
  /** `--require-oracle`: a task without an oracle patch fails validation instead of passing as unproven. */
  requireOracle?: boolean;
  /** Run the attack catalogue instead of nop/oracle (docs/redteam.md). */
  adversarial?: boolean;
  /** With --adversarial: only these attacks (heavy ones run only when named). */
  attack?: string[];
  /** `--strength`: also grade mutants of each oracle fix, and run nop --runs times (docs/strength.md). */
  strength?: boolean;
  maxMutants?: string;
  seed?: string;
  /** `--min-strength F`: a valid task whose strength is below F fails validation. */
  minStrength?: string;
}

export const VALIDATE_SCHEMA_VERSION = 1;

/**
 * `crucible validate`: per task one `nop` attempt and --runs `oracle` attempts, through the
 * engine's run (preflight, checkpoint, lock: the same pipeline as `run`) in `<out>/validate/`,
 * judged by grading/validity.ts. The run's preflight reports broken tasks (a fail-to-pass id the
 * tests do not report, an oracle patch that does not apply, a repo that cannot be fetched) before
 * any attempt. Per-attempt baseline test runs are off: the nop attempt is the baseline.
 * Exit 0 when every task is valid (or, without --require-oracle, unproven: no oracle, nothing
 * wrong), 1 when some is invalid or flaky, 2 when some task is broken.
 */
export async function validateCommand(tasksetPath: string, opts: ValidateCommandOptions, io: CliIo): Promise<void> {
  if (opts.adversarial) return adversarialCommand(tasksetPath, opts, io);
  if (opts.attack?.length) throw new InputError('--attack: only with --adversarial (fix: add --adversarial)');
  const strengthOptions = strengthFlags(opts);
  const runs = wholeNumber('--runs', opts.runs, 3, 1, MAX_PLANNED_ATTEMPTS);
  const concurrency = wholeNumber('--concurrency', opts.concurrency, defaultConcurrency());
  writableStateDir('--out', opts.out, io.cwd);
  // A suite validates every task of its task sets, ids `<set>/<task>`.
  const taskSet = loadRunInput(tasksetPath);
  // Agent profiles (the task set's agents:, --agents FILE) are checked too: a broken one fails here, not in a later run.
  loadAgentCatalog({ taskSet: taskSet.profiles, agentsFile: opts.agents });
  const tasks = withFlagNames(() => selectTasks(taskSet.tasks, { taskIds: opts.task }, tasksetPath));
  // Without a single oracle patch there is nothing for `oracle` to apply: its attempts would only be errors.
  const references = tasks.some((t) => t.oracle !== undefined) ? ['nop', 'oracle'] : ['nop'];
  const strength = strengthOptions ? await planStrength(tasks, { ...strengthOptions, stateDir: opts.out }) : undefined;
  const mutants = strength?.agents ?? [];
  const agents = [...references, ...mutants];
  // Mutants are patches nobody vetted: like `crucible grade`'s predictions they get the sandbox, never the local fallback.
  const sandbox = await chooseSandbox(io, opts.sandbox, agents);

  const { outcome, results } = await runValidationIn(io, {
    taskSet,
    tasks,
    selection: { taskIds: opts.task },
    agents,
    trials: runs,
    // One nop attempt is the baseline; the oracle runs --runs times to catch a flaky task (and nop
    // too under --strength, for the flake rate); each mutant once, as a prediction is graded.
    agentTrials: { nop: strength ? runs : 1, ...Object.fromEntries(mutants.map((m) => [m, 1])) },
    ...(strength ? { only: strength.only, resolveAgent: (spec: string) => strength.agent(spec) ?? resolveRunAgent(spec) } : {}),
    stateDir: opts.out,
    settings: { sandbox, baselineTests: false },
    concurrency,
  });
  const aborted = outcome.summary.ended === 'interrupted';
  const runDir = outcome.runDir;
  const validity = tasks.map((task) => {
    const mine = results.filter((r) => r.taskId === task.id);
    return judgeTaskValidity(
      task,
      mine.find((r) => r.agent === 'nop'),
      mine.filter((r) => r.agent === 'oracle'),
    );
  });
  const measured =
    strength && !aborted ? await measureStrength(strength, results, (id) => validity.find((v) => v.taskId === id)?.status === 'valid', opts.out) : undefined;
  const strengthFile = measured ? await writeStrengthFile(opts.out, measured.tasks, measured.patches) : undefined;
  const tooWeak = (v: TaskValidity): boolean => {
    const s = measured?.tasks.find((t) => t.taskId === v.taskId)?.strength;
    return strengthOptions?.minStrength !== undefined && s !== undefined && s < strengthOptions.minStrength;
  };
  const accepted = (v: TaskValidity): boolean => (v.status === 'valid' && !tooWeak(v)) || (v.status === 'unproven' && !opts.requireOracle);
  const valid = validity.every(accepted) && !aborted;
  const unproven = validity.filter((v) => v.status === 'unproven').length;
  if (opts.json) {
    const out = {
      schemaVersion: VALIDATE_SCHEMA_VERSION,
      taskSet: relative(io.cwd, taskSet.file) || taskSet.file,
      runs,
      dir: runDir,
      valid,
      unproven,
      tasks: validity,
      ...(measured
        ? { strengthFile: relative(io.cwd, strengthFile as string), strength: measured.tasks, strengthSummary: summarizeTaskSet(measured.tasks) }
        : {}),
    };
    io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    io.stdout.write(`\n${formatValidity(validity, runs, measured?.tasks)}\n`);
    if (measured) io.stdout.write(`\n${formatStrengthDetail(measured.tasks, relative(io.cwd, strengthFile as string), strengthOptions?.minStrength)}\n`);
    if (outcome.taskErrors.length > 0) io.stdout.write(`\n${formatTaskErrors(outcome.taskErrors)}\n`);
    const bad = validity.filter((v) => !accepted(v)).length;
    const verdict =
      bad > 0
        ? pc.red(`${bad} of ${validity.length} tasks not valid${opts.requireOracle && unproven > 0 ? ` (${unproven} unproven: --require-oracle)` : ''}`)
        : unproven > 0
          ? pc.yellow(
              `${validity.length - unproven} of ${validity.length} tasks valid, ${unproven} unproven: no oracle patch, so nothing shows ${unproven === 1 ? 'it' : 'them'} solvable (add one; --require-oracle fails on this)`,
            )
          : pc.green(`all ${validity.length} tasks valid`);
    io.stdout.write(`\n${verdict}  ${pc.dim(`evidence in ${relative(io.cwd, runDir) || runDir}`)}\n`);
  }
  // A broken task is bad input (exit 2, like `run`); a task that is merely invalid or flaky is 1.
  exitWith(runExitCode({ interrupted: aborted, taskErrors: outcome.taskErrors.length, passed: valid }));
}

export function formatValidity(validity: TaskValidity[], runs: number, strength?: readonly TaskStrength[]): string {
  const status = (v: TaskValidity): string =>
    v.status === 'valid' ? pc.green('valid') : v.status === 'flaky' || v.status === 'unproven' ? pc.yellow(v.status) : pc.red('invalid');
  const of = (v: TaskValidity): TaskStrength | undefined => strength?.find((t) => t.taskId === v.taskId);
  const rows = validity.map((v) => [
    status(v),
    v.taskId,
    v.nop.failToPassTotal === undefined ? '-' : `fails ${v.nop.failToPassFailing}/${v.nop.failToPassTotal}`,
    v.status === 'unproven' ? '-' : `passes ${v.oracle.passed}/${v.oracle.runs || runs}`,
    v.heldOut ? `${v.heldOut.passed}/${v.heldOut.total}` : '-',
    ...(strength ? [formatStrengthCell(of(v)), formatFlakeCell(of(v))] : []),
    [...v.problems, ...v.notes.map((n) => pc.dim(n))].join('; ') || pc.dim('ok'),
  ]);
  return table(['status', 'task', 'nop F2P', 'oracle', 'held-out', ...(strength ? ['strength', 'flake'] : []), 'why'], rows);
}

/**
 * `crucible validate --adversarial`: every applicable attack of the catalogue (and the honest
 * controls) once per task, through the engine's run with baseline tests on, as `crucible run`
 * grades. Reports per task which attacks got through (PASS), turned into a harness error (ERROR)
 * or, for an honest control, failed. Exit 0 when none did, 2 when a task is broken, 1 otherwise.
 */
async function adversarialCommand(tasksetPath: string, opts: ValidateCommandOptions, io: CliIo): Promise<void> {
  const concurrency = wholeNumber('--concurrency', opts.concurrency, defaultConcurrency());
  const names = opts.attack?.length ? opts.attack : undefined;
  const unknown = names?.find((n) => !findAttack(n));
  if (unknown !== undefined) throw new InputError(`--attack ${unknown}: no such attack (fix: use one of ${ATTACKS.map((a) => a.name).join(', ')})`);
  writableStateDir('--out', opts.out, io.cwd);
  // A suite validates every task of its task sets, ids `<set>/<task>`.
  const taskSet = loadRunInput(tasksetPath);
  // Agent profiles (the task set's agents:, --agents FILE) are checked too: a broken one fails here, not in a later run.
  loadAgentCatalog({ taskSet: taskSet.profiles, agentsFile: opts.agents });
  const tasks = withFlagNames(() => selectTasks(taskSet.tasks, { taskIds: opts.task }, tasksetPath));
  const applicable = new Map(tasks.map((t) => [t.id, attacksFor(t, { ...(names ? { names } : {}) })]));
  const attackNames = [...new Set([...applicable.values()].flat().map((a) => a.name))];
  if (attackNames.length === 0) throw new InputError(`--adversarial: no attack applies to the selected tasks (attacks need pytest or node test commands)`);
  // The attacks exist to test the sandbox: no fallback to the local executor.
  const sandbox = await chooseSandbox(io, opts.sandbox, attackNames, 'attack');
  const reports = new Map<string, AttackReport>();
  const { outcome } = await runValidationIn(io, {
    taskSet,
    tasks,
    selection: { taskIds: opts.task },
    agents: attackNames,
    trials: 1,
    only: (taskId, agent) => applicable.get(taskId)?.some((x) => x.name === agent) === true,
    stateDir: opts.out,
    settings: { sandbox, baselineTests: true },
    concurrency,
    onResult: (result) => {
      const attack = findAttack(result.agent) as Attack;
      const report = judgeAttack(attack, result);
      io.stderr.write(`${outcomeLabel(report)} ${result.taskId} ${pc.dim(`${attack.name} → ${result.verdict} ${result.cause}`)}\n`);
      reports.set(result.attemptId, report);
    },
  });
  const aborted = outcome.summary.ended === 'interrupted';
  const runDir = outcome.runDir;
  const judged: TaskAdversarial[] = tasks.map((task) =>
    judgeTaskAdversarial(
      task.id,
      outcome.attempts.filter((a) => a.taskId === task.id).flatMap((a) => reports.get(a.attemptId) ?? []),
    ),
  );
  const secure = judged.every((t) => t.secure) && !aborted;
  if (opts.json) {
    const out = {
      schemaVersion: VALIDATE_SCHEMA_VERSION,
      adversarial: true,
      taskSet: relative(io.cwd, taskSet.file) || taskSet.file,
      dir: runDir,
      secure,
      tasks: judged,
      taskErrors: outcome.taskErrors,
    };
    io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    io.stdout.write(`\n${formatAdversarial(judged)}\n`);
    if (outcome.taskErrors.length > 0) io.stdout.write(`\n${formatTaskErrors(outcome.taskErrors)}\n`);
    const bad = judged.filter((t) => !t.secure);
    const lines = bad.map(
      (t) =>
        `  ${t.taskId}: ${[...(t.gotThrough.length ? [`got through: ${t.gotThrough.join(', ')}`] : []), ...(t.harnessErrors.length ? [`harness errors: ${t.harnessErrors.join(', ')}`] : []), ...(t.falseAlarms.length ? [`honest controls failed: ${t.falseAlarms.join(', ')}`] : [])].join('; ')}`,
    );
    const head =
      bad.length === 0
        ? pc.green(`no attack got through on ${judged.length} task${judged.length === 1 ? '' : 's'}`)
        : pc.red(`${bad.length} of ${judged.length} tasks let something through`);
    io.stdout.write(`\n${head}  ${pc.dim(`evidence in ${relative(io.cwd, runDir) || runDir}`)}\n${lines.length ? `${lines.join('\n')}\n` : ''}`);
  }
  exitWith(runExitCode({ interrupted: aborted, taskErrors: outcome.taskErrors.length, passed: secure }));
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
  const rows = tasks.flatMap((t) =>
    t.attacks.map((r) => [outcomeLabel(r).trimEnd(), t.taskId, r.attack, r.class, r.expected, `${r.verdict} ${r.cause}${r.limit ? ` (${r.limit})` : ''}`]),
  );
  return table(['outcome', 'task', 'attack', 'class', 'expected', 'got'], rows);
}
