import { appendFile, mkdir, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { resolveAgent } from '../agents/index.js';
import type { SandboxKind } from '../sandbox/executor.js';
import { RUN_SCHEMA_VERSION, toSummaryRow, type AttemptResult, type RunSummary, type Task } from '../types/index.js';
import { runAttempt } from './attempt.js';
import { configHash, expandPlan, newRunId } from './plan.js';

export interface RunOptions {
  taskSetFile: string;
  tasks: Task[];
  agents: string[];
  trials: number;
  /** Crucible's state directory, `.crucible` by default. */
  stateDir: string;
  sandbox: SandboxKind;
  keepWorkspace?: boolean;
  signal?: AbortSignal;
  onAttemptStart?: (plan: { attemptId: string; taskId: string; agent: string; trial: number }) => void;
  onAttemptDone?: (result: AttemptResult) => void;
}

/** Expands the plan, runs every attempt, checkpoints each as it finishes, and writes summary.json. */
export async function executeRun(options: RunOptions): Promise<{ summary: RunSummary; attempts: AttemptResult[]; runDir: string }> {
  const agents = options.agents.map((spec) => resolveAgent(spec));
  const stateDir = resolve(options.stateDir);
  const runId = newRunId();
  const runDir = join(stateDir, 'runs', runId);
  await mkdir(join(runDir, 'attempts'), { recursive: true });
  const hash = configHash(options.tasks, { sandbox: options.sandbox });
  const plan = expandPlan(runId, options.tasks, options.agents, options.trials, hash);
  await writeJson(join(runDir, 'plan.json'), { schemaVersion: 1, runId, taskSet: options.taskSetFile, configHash: hash, attempts: plan });

  const createdAt = new Date().toISOString();
  const attempts: AttemptResult[] = [];
  for (const item of plan) {
    if (options.signal?.aborted) break;
    const task = options.tasks.find((t) => t.id === item.taskId) as Task;
    const agent = agents[options.agents.indexOf(item.agent)];
    if (!agent) continue;
    options.onAttemptStart?.(item);
    const result = await runAttempt(item, task, agent, { runDir, stateDir, sandbox: options.sandbox, keepWorkspace: options.keepWorkspace, signal: options.signal });
    await appendFile(join(runDir, 'checkpoint.jsonl'), `${JSON.stringify(toSummaryRow(result))}\n`);
    attempts.push(result);
    options.onAttemptDone?.(result);
  }

  const summary: RunSummary = {
    schemaVersion: RUN_SCHEMA_VERSION,
    runId,
    taskSet: options.taskSetFile,
    createdAt,
    finishedAt: new Date().toISOString(),
    planned: plan.length,
    executed: attempts.length,
    stoppedEarly: attempts.length < plan.length,
    counts: {
      PASS: attempts.filter((a) => a.verdict === 'PASS').length,
      FAIL: attempts.filter((a) => a.verdict === 'FAIL').length,
      ERROR: attempts.filter((a) => a.verdict === 'ERROR').length,
    },
    attempts: attempts.map(toSummaryRow),
  };
  await writeJson(join(runDir, 'summary.json'), summary);
  return { summary, attempts, runDir };
}

async function writeJson(file: string, value: unknown): Promise<void> {
  await writeFile(`${file}.tmp`, `${JSON.stringify(value, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
}
