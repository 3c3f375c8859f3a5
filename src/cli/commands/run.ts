import { relative } from 'node:path';
import pc from 'picocolors';
import { referenceAgentNames } from '../../agents/index.js';
import { loadTaskSet } from '../../config/index.js';
import { executeRun } from '../../engine/run.js';
import { InputError } from '../../errors.js';
import { resolveSandbox } from '../../sandbox/index.js';
import type { SandboxKind } from '../../sandbox/executor.js';
import { ATTEMPT_COLUMNS, attemptCells, formatDuration, table } from '../format.js';

export interface RunCommandOptions {
  agent?: string[];
  task?: string[];
  out: string;
  sandbox?: SandboxKind;
  keepWorkspace?: boolean;
  json?: boolean;
}

export async function runCommand(tasksetPath: string, opts: RunCommandOptions): Promise<void> {
  const agents = opts.agent ?? [];
  if (agents.length === 0) throw new InputError(`no agent given (fix: add --agent ${referenceAgentNames().join(' or --agent ')})`);
  const taskSet = loadTaskSet(tasksetPath);
  const tasks = opts.task ? selectTasks(taskSet.tasks, opts.task, tasksetPath) : taskSet.tasks;

  // Reference agents run only code the task author wrote, so a missing sandbox may fall back.
  const trusted = agents.every((a) => referenceAgentNames().includes(a));
  const sandbox = await resolveSandbox(opts.sandbox, { allowFallback: trusted });
  const log = (line: string): void => void (opts.json ? process.stderr : process.stdout).write(`${line}\n`);
  if (sandbox.warning) process.stderr.write(`${pc.yellow('warning')} ${sandbox.warning}\n`);

  const controller = new AbortController();
  const onSigint = (): void => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    const { summary, attempts, runDir } = await executeRun({
      taskSetFile: relative(process.cwd(), taskSet.file) || taskSet.file,
      tasks,
      agents,
      trials: 1,
      stateDir: opts.out,
      sandbox: sandbox.kind,
      keepWorkspace: opts.keepWorkspace,
      signal: controller.signal,
      onAttemptDone: (a) => log(`${attemptCells(a)[0]} ${a.taskId} ${pc.dim(`${a.agent} #${a.trial}`)} ${pc.dim(formatDuration(a.timings.totalMs))}`),
    });
    log('');
    log(table(ATTEMPT_COLUMNS, attempts.map(attemptCells)));
    const { PASS, FAIL, ERROR } = summary.counts;
    log(`\n${summary.executed}/${summary.planned} attempts: ${pc.green(`${PASS} passed`)}, ${pc.red(`${FAIL} failed`)}, ${pc.yellow(`${ERROR} errored`)}  run ${summary.runId}`);
    log(pc.dim(`evidence in ${relative(process.cwd(), runDir) || runDir}`));
    if (opts.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    process.exitCode = PASS === summary.planned ? 0 : 1;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

function selectTasks<T extends { id: string }>(tasks: T[], ids: string[], file: string): T[] {
  const unknown = ids.filter((id) => !tasks.some((t) => t.id === id));
  if (unknown.length > 0) {
    throw new InputError(`--task ${unknown[0]}: no such task in ${file} (fix: use one of ${tasks.map((t) => t.id).join(', ')})`);
  }
  return tasks.filter((t) => ids.includes(t.id));
}
