import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Agent } from '../agents/index.js';
import { recordingExecutor } from '../evidence/command-log.js';
import { collectDiff } from '../evidence/diff.js';
import { runTests } from '../evidence/run-tests.js';
import { grade } from '../grading/verdict.js';
import { createExecutor } from '../sandbox/index.js';
import type { SandboxKind } from '../sandbox/executor.js';
import { materializeRepo } from '../tasks/repo-source.js';
import {
  ATTEMPT_SCHEMA_VERSION,
  type AgentResult,
  type AttemptPlan,
  type AttemptResult,
  type DiffStats,
  type Task,
  type TestRunEvidence,
} from '../types/index.js';
import { commitBaseline, type Baseline } from '../workspace/baseline.js';
import { sandboxLayout } from './sandbox-layout.js';

export interface AttemptEnv {
  runDir: string;
  /** Crucible's state directory (`.crucible`), hidden from agents. */
  stateDir: string;
  sandbox: SandboxKind;
  /** Keep the workspace after the attempt (for debugging); by default only the evidence stays. */
  keepWorkspace?: boolean;
  /** Aborts the agent and any command running for this attempt. */
  signal?: AbortSignal;
}

type Phase = 'prepare' | 'agent' | 'verify' | 'record';

class PhaseError extends Error {
  constructor(
    readonly phase: Phase,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** Runs one attempt end to end: prepare → agent → verify → grade → record. Never throws. */
export async function runAttempt(plan: AttemptPlan, task: Task, agent: Agent, env: AttemptEnv): Promise<AttemptResult> {
  const startedAt = new Date();
  const attemptDir = join(env.runDir, 'attempts', plan.attemptId);
  const workspace = join(attemptDir, 'workspace');
  const timings = { prepareMs: 0, agentMs: 0, verifyMs: 0, totalMs: 0 };
  const base = {
    ...plan,
    schemaVersion: ATTEMPT_SCHEMA_VERSION,
    sandbox: env.sandbox,
    checks: [],
    timings,
    startedAt: startedAt.toISOString(),
  } satisfies Partial<AttemptResult>;

  let baseline: Baseline | undefined;
  let agentResult: AgentResult | undefined;
  let diff: DiffStats | undefined;
  let tests: TestRunEvidence | undefined;
  try {
    baseline = await timed(timings, 'prepareMs', 'prepare', () => prepare(task, attemptDir, workspace, env));
    agentResult = await timed(timings, 'agentMs', 'agent', () => runAgent(agent, task, attemptDir, workspace, baseline as Baseline, env));
    const verified = await timed(timings, 'verifyMs', 'verify', () => verify(task, attemptDir, workspace, baseline as Baseline, env));
    diff = verified.diff;
    tests = verified.tests;
    const verdict = grade({ tests, diff, agentResult, checks: [] });
    return await record(attemptDir, { ...base, ...verdict, baselineCommit: baseline.commit, agentResult, diff, tests, finishedAt: '' }, startedAt, env);
  } catch (error) {
    const phase = error instanceof PhaseError ? error.phase : 'record';
    const message = error instanceof Error ? error.message : String(error);
    const result: AttemptResult = {
      ...base,
      verdict: 'ERROR',
      cause: 'harness_error',
      message: `${phase}: ${message}`,
      harnessError: { phase, message },
      baselineCommit: baseline?.commit,
      agentResult,
      diff,
      tests,
      finishedAt: '',
    };
    return record(attemptDir, result, startedAt, env).catch(() => finish(result, startedAt));
  }
}

async function timed<T>(timings: Record<string, number>, key: string, phase: Phase, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } catch (error) {
    throw error instanceof PhaseError ? error : new PhaseError(phase, error);
  } finally {
    timings[key] = Math.round(performance.now() - started);
  }
}

async function prepare(task: Task, attemptDir: string, workspace: string, env: AttemptEnv): Promise<Baseline> {
  // An attempt directory left by an interrupted run is not evidence of anything: start clean.
  await rm(attemptDir, { recursive: true, force: true });
  await Promise.all(['workspace', 'home', 'tmp', 'results'].map((d) => mkdir(join(attemptDir, d), { recursive: true })));
  await materializeRepo(task.repo, workspace, join(env.stateDir, 'cache'));

  if (task.setup.length > 0) {
    const toolCache = join(env.stateDir, 'cache', 'tools');
    await mkdir(toolCache, { recursive: true });
    const executor = createExecutor(env.sandbox, sandboxLayout({ task, stateDir: env.stateDir, workspace, attemptDir, alsoWritable: [toolCache] }));
    for (const command of task.setup) {
      const result = await executor.exec({
        argv: ['sh', '-c', command],
        cwd: workspace,
        // Package managers reuse one cache across attempts instead of downloading every time.
        env: { npm_config_cache: join(toolCache, 'npm'), PIP_CACHE_DIR: join(toolCache, 'pip'), XDG_CACHE_HOME: toolCache, CI: 'true' },
        timeoutMs: task.limits.setupTimeoutMs,
        network: 'host',
        signal: env.signal,
      });
      if (result.exitCode !== 0) {
        const why = result.timedOut ? `timed out after ${task.limits.setupTimeoutMs} ms` : `exit ${result.exitCode ?? result.signal}`;
        const tail = `${result.stderr}${result.stdout}`.trim().split('\n').slice(-1)[0] ?? '';
        throw new Error(`setup command \`${command}\` failed (${why}): ${tail}`);
      }
    }
  }
  return commitBaseline(workspace, join(attemptDir, 'baseline.git'));
}

async function runAgent(agent: Agent, task: Task, attemptDir: string, workspace: string, baseline: Baseline, env: AttemptEnv): Promise<AgentResult> {
  const layout = sandboxLayout({ task, stateDir: env.stateDir, workspace, attemptDir, baselineGitDir: baseline.gitDir });
  const executor = recordingExecutor(createExecutor(env.sandbox, layout), join(attemptDir, 'commands.jsonl'));
  const controller = new AbortController();
  const onOuterAbort = (): void => controller.abort();
  env.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const timeoutMs = task.limits.agentTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<AgentResult>((resolveTimeout) => {
    timer = setTimeout(() => {
      controller.abort();
      resolveTimeout({ stopReason: 'timeout', error: `agent did not finish within ${timeoutMs} ms` });
    }, timeoutMs);
  });
  try {
    const run = agent
      .run({ task, workspace, instruction: task.instruction, executor, attemptDir, limits: { timeoutMs }, signal: controller.signal })
      .catch((error: unknown): AgentResult => ({ stopReason: 'error', error: error instanceof Error ? error.message : String(error) }));
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
    env.signal?.removeEventListener('abort', onOuterAbort);
    controller.abort();
  }
}

async function verify(task: Task, attemptDir: string, workspace: string, baseline: Baseline, env: AttemptEnv): Promise<{ diff: DiffStats; tests: TestRunEvidence }> {
  const diff = await collectDiff({ gitDir: baseline.gitDir, workspace, baseline: baseline.commit, patchFile: join(attemptDir, 'diff.patch') });
  const resultsDir = join(attemptDir, 'results');
  const executor = createExecutor(env.sandbox, sandboxLayout({ task, stateDir: env.stateDir, workspace, attemptDir, baselineGitDir: baseline.gitDir, alsoWritable: [resultsDir] }));
  const { evidence, junitXml } = await runTests({
    executor,
    workspace,
    command: task.tests.command,
    junit: task.tests.junit,
    resultsDir,
    reportName: 'tests.junit.xml',
    failToPass: task.tests.failToPass,
    passToPass: task.tests.passToPass,
    timeoutMs: task.limits.testTimeoutMs,
    signal: env.signal,
  });
  if (junitXml !== undefined) await writeFile(join(attemptDir, 'tests.junit.xml'), junitXml);
  return { diff, tests: evidence };
}

function finish(result: AttemptResult, startedAt: Date): AttemptResult {
  const finishedAt = new Date();
  result.finishedAt = finishedAt.toISOString();
  result.timings.totalMs = finishedAt.getTime() - startedAt.getTime();
  return result;
}

/** Writes attempt.json atomically (a crash leaves the old file or none, never half of one). */
async function record(attemptDir: string, result: AttemptResult, startedAt: Date, env: AttemptEnv): Promise<AttemptResult> {
  finish(result, startedAt);
  await mkdir(attemptDir, { recursive: true });
  if (!env.keepWorkspace) {
    await Promise.all(['workspace', 'baseline.git', 'home', 'tmp'].map((d) => rm(join(attemptDir, d), { recursive: true, force: true })));
  }
  const file = join(attemptDir, 'attempt.json');
  await writeFile(`${file}.tmp`, `${JSON.stringify(result, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
  return result;
}
