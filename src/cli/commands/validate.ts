import { join, relative, resolve } from 'node:path';
import pc from 'picocolors';
import { resolveAgent } from '../../agents/index.js';
import { loadTaskSet } from '../../config/index.js';
import { defaultConcurrency, expandPlan, newRunId, runAttempt, schedule, selectTasks, type AttemptEnv } from '../../engine/index.js';
import { judgeTaskValidity, type TaskValidity } from '../../grading/index.js';
import { resolveSandbox } from '../../sandbox/index.js';
import type { SandboxKind } from '../../sandbox/executor.js';
import type { AttemptResult, Task } from '../../types/index.js';
import { wholeNumber } from '../args.js';
import { table } from '../format.js';

export interface ValidateCommandOptions {
  task?: string[];
  runs?: string;
  concurrency?: string;
  out: string;
  sandbox?: SandboxKind;
  json?: boolean;
}

export const VALIDATE_SCHEMA_VERSION = 1;

/**
 * `crucible validate`: per task one `nop` attempt and --runs `oracle` attempts, all through
 * runAttempt (the same pipeline as `run`), judged by grading/validity.ts. Baseline test runs are
 * off here: the nop attempt is the baseline. Exit 0 when every task is valid, 1 otherwise.
 */
export async function validateCommand(tasksetPath: string, opts: ValidateCommandOptions): Promise<void> {
  const runs = wholeNumber('--runs', opts.runs, 3);
  const concurrency = wholeNumber('--concurrency', opts.concurrency, defaultConcurrency());
  const taskSet = loadTaskSet(tasksetPath);
  const tasks = selectTasks(taskSet.tasks, { taskIds: opts.task }, tasksetPath);
  const sandbox = await resolveSandbox(opts.sandbox, { allowFallback: true });
  if (sandbox.warning) process.stderr.write(`${pc.yellow('warning')} ${sandbox.warning}\n`);

  const stateDir = resolve(opts.out);
  const id = newRunId();
  const runDir = join(stateDir, 'validate', id);
  const settings = { sandbox: sandbox.kind, baselineTests: false };
  const plan = expandPlan(id, tasks, ['nop', 'oracle'], runs, settings).attempts.filter((a) => a.agent === 'oracle' || a.trial === 0);

  const controller = new AbortController();
  const onSigint = (): void => controller.abort();
  process.once('SIGINT', onSigint);
  const env: AttemptEnv = { runDir, stateDir, ...settings, signal: controller.signal };
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const byIndex: AttemptResult[] = [];
  try {
    await schedule(
      plan,
      concurrency,
      async (item) => {
        const task = tasks.find((t) => t.id === item.taskId) as Task;
        const result = await runAttempt(item, task, resolveAgent(item.agent), env);
        log(`${pc.dim(result.verdict.padEnd(5))} ${result.taskId} ${pc.dim(`${result.agent} #${result.trial}`)} ${pc.dim(result.cause)}`);
        byIndex[plan.indexOf(item)] = result;
      },
      () => controller.signal.aborted,
    );
  } finally {
    process.off('SIGINT', onSigint);
  }

  const results = byIndex.filter((r) => r !== undefined);
  const validity = tasks.map((task) => {
    const mine = results.filter((r) => r.taskId === task.id);
    return judgeTaskValidity(task, mine.find((r) => r.agent === 'nop'), mine.filter((r) => r.agent === 'oracle'));
  });
  const valid = validity.every((v) => v.status === 'valid') && !controller.signal.aborted;
  if (opts.json) {
    const out = { schemaVersion: VALIDATE_SCHEMA_VERSION, taskSet: relative(process.cwd(), taskSet.file) || taskSet.file, runs, dir: runDir, valid, tasks: validity };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    process.stdout.write(`\n${formatValidity(validity, runs)}\n`);
    const bad = validity.filter((v) => v.status !== 'valid').length;
    process.stdout.write(`\n${bad === 0 ? pc.green(`all ${validity.length} tasks valid`) : pc.red(`${bad} of ${validity.length} tasks not valid`)}  ${pc.dim(`evidence in ${relative(process.cwd(), runDir) || runDir}`)}\n`);
  }
  process.exitCode = controller.signal.aborted ? 130 : valid ? 0 : 1;
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

