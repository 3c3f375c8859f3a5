import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Agent } from '../agents/index.js';
import { recordingExecutor, type CommandEvent } from '../evidence/command-log.js';
import { startFsGuard } from '../evidence/fs-guard.js';
import { snapshotTests } from '../evidence/test-guard.js';
import { grade } from '../grading/index.js';
import { createExecutor } from '../sandbox/index.js';
import type { SandboxKind } from '../sandbox/executor.js';
import { materializeRepo } from '../tasks/repo-source.js';
import {
  ATTEMPT_SCHEMA_VERSION,
  type AgentResult,
  type AttemptPlan,
  type AttemptResult,
  type CheckResult,
  type DiffStats,
  type Task,
  type TestRunEvidence,
} from '../types/index.js';
import { commitBaseline, type Baseline } from '../workspace/baseline.js';
import type { RunModels } from './gateway-lifecycle.js';
import { neverRanReason, runBaselineTests, taskInvalidReason, verifyAttempt, type AttemptPaths, type TestRun } from './attempt-verify.js';
import { writeJsonAtomic } from './run-files.js';
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
  /** The run's model gateway, for agents that call a model. */
  models?: RunModels;
  /**
   * Run the tests once at the baseline before the agent (default true): tells a regression from a
   * test that never passed, and stops a task whose fail-to-pass tests already pass.
   */
  baselineTests?: boolean;
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

/**
 * Runs one attempt end to end, never throwing:
 * prepare (workspace, setup, baseline commit, test snapshot) → baseline tests → agent (sandboxed,
 * commands recorded, outside writes watched) → verify (diff, test files checked and put back,
 * tests, held-out tests) → checks → grade → record.
 */
export async function runAttempt(plan: AttemptPlan, task: Task, agent: Agent, env: AttemptEnv): Promise<AttemptResult> {
  const startedAt = new Date();
  const attemptDir = join(env.runDir, 'attempts', plan.attemptId);
  const workspace = join(attemptDir, 'workspace');
  const paths: AttemptPaths = { attemptDir, workspace, resultsDir: join(attemptDir, 'results') };
  const timings: AttemptResult['timings'] = { prepareMs: 0, agentMs: 0, verifyMs: 0, totalMs: 0 };
  const base = {
    ...plan,
    schemaVersion: ATTEMPT_SCHEMA_VERSION,
    sandbox: env.sandbox,
    checks: [],
    timings,
    startedAt: startedAt.toISOString(),
  } satisfies Partial<AttemptResult>;

  let baseline: Baseline | undefined;
  let baselineRun: TestRun | undefined;
  let agentResult: AgentResult | undefined;
  let diff: DiffStats | undefined;
  let tests: TestRunEvidence | undefined;
  let heldOut: TestRunEvidence | undefined;
  let checks: CheckResult[] = [];
  try {
    const prepared = await timed(timings, 'prepareMs', 'prepare', async () => {
      const committed = await prepare(task, attemptDir, workspace, env);
      // Hashed now, before anything ran: the reference the agent is judged against.
      const snapshot = await snapshotTests({ workspace, gitDir: committed.gitDir, commit: committed.commit, testPaths: task.tests.testPaths, copyDir: join(attemptDir, 'test-snapshot') });
      return { committed, snapshot };
    });
    baseline = prepared.committed;
    const { snapshot } = prepared;
    if (env.baselineTests !== false) {
      baselineRun = await timed(timings, 'baselineMs', 'prepare', () => runBaselineTests(task, paths, prepared.committed, snapshot, env));
      const invalid = taskInvalidReason(task, baselineRun.evidence);
      if (invalid) throw new PhaseError('prepare', new Error(invalid));
    }
    const agentRun = await timed(timings, 'agentMs', 'agent', () => runAgent(agent, task, paths, prepared.committed, env, plan));
    agentResult = agentRun.result;
    const verified = await timed(timings, 'verifyMs', 'verify', () =>
      verifyAttempt({ task, paths, baseline: prepared.committed, snapshot, fsGuard: agentRun.fsGuard, env, commands: agentRun.commands, sandboxEnforcesFs: agentRun.enforcesFs, baselineRun }),
    );
    ({ diff, tests, heldOut, checks } = verified);
    const evidence = { baselineCommit: baseline.commit, baselineTests: baselineRun?.evidence, agentResult, diff, tests, heldOut, checks };
    const neverRan = neverRanReason(verified.tests, baselineRun?.evidence);
    if (neverRan) {
      return await record(attemptDir, { ...base, ...evidence, verdict: 'ERROR', cause: 'harness_error', message: `verify: ${neverRan}`, harnessError: { phase: 'verify', message: neverRan }, finishedAt: '' }, startedAt, env);
    }
    const verdict = grade({ checks, agentResult });
    return await record(attemptDir, { ...base, ...evidence, ...verdict, finishedAt: '' }, startedAt, env);
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
      baselineTests: baselineRun?.evidence,
      agentResult,
      diff,
      tests,
      heldOut,
      checks,
      finishedAt: '',
    };
    return record(attemptDir, result, startedAt, env).catch(() => finish(result, startedAt));
  }
}

async function timed<T>(timings: AttemptResult['timings'], key: 'prepareMs' | 'baselineMs' | 'agentMs' | 'verifyMs', phase: Phase, work: () => Promise<T>): Promise<T> {
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

interface AgentRun {
  result: AgentResult;
  /** Every command the agent ran, as the harness recorded it (commands.jsonl is a copy). */
  commands: CommandEvent[];
  /** Whether the sandbox made writes outside the workspace fail. */
  enforcesFs: boolean;
  fsGuard: Awaited<ReturnType<typeof startFsGuard>>;
}

async function runAgent(agent: Agent, task: Task, paths: AttemptPaths, baseline: Baseline, env: AttemptEnv, plan: AttemptPlan): Promise<AgentRun> {
  const { attemptDir, workspace } = paths;
  // A model agent's traffic goes through a gateway session; its metering becomes the attempt's usage.
  const models = env.models?.openAttempt(plan, agent);
  const layout = sandboxLayout({ task, stateDir: env.stateDir, workspace, attemptDir, baselineGitDir: baseline.gitDir });
  const controller = new AbortController();
  const executor = recordingExecutor(createExecutor(env.sandbox, layout), join(attemptDir, 'commands.jsonl'), controller.signal);
  const enforcesFs = executor.isolation.filesystem;
  // Without a sandbox that stops them, outside writes can only be looked for afterwards.
  const fsGuard = await startFsGuard({
    attemptDir,
    resultsDir: paths.resultsDir,
    trees: enforcesFs ? [] : [dirname(task.sourceFile), ...(task.repo.kind === 'local' ? [task.repo.path] : []), ...(task.heldOut ? [task.heldOut.path] : [])],
    exclude: [env.stateDir, attemptDir],
  });
  const onOuterAbort = (): void => controller.abort();
  env.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const timeoutMs = env.models?.agentTimeoutMs ?? task.limits.agentTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolveTimeout) => {
    timer = setTimeout(() => {
      controller.abort();
      resolveTimeout('timeout');
    }, timeoutMs);
  });
  try {
    const run = agent
      .run({ task, workspace, instruction: task.instruction, executor, attemptDir, limits: { timeoutMs }, signal: controller.signal, ...(models ? { model: models.access } : {}) })
      .catch((error: unknown): AgentResult => ({ stopReason: 'error', error: error instanceof Error ? error.message : String(error) }));
    const raced = await Promise.race([run, timeout]);
    let result: AgentResult;
    if (raced === 'timeout') {
      // The agent was aborted; give it a moment to return what it has (turns, tool calls), but the
      // stop stays a timeout whatever it says.
      const late = await Promise.race([run, delay(TIMEOUT_REPORT_GRACE_MS)]);
      result = { ...(late ?? {}), stopReason: 'timeout', error: `agent did not finish within ${timeoutMs} ms` };
    } else {
      result = raced;
    }
    return { result: models ? models.finish(result) : result, commands: [...executor.events()], enforcesFs, fsGuard };
  } finally {
    clearTimeout(timer);
    env.signal?.removeEventListener('abort', onOuterAbort);
    controller.abort();
  }
}

/** How long a timed-out agent may take to hand back its partial result after being aborted. */
const TIMEOUT_REPORT_GRACE_MS = 2_000;

function delay(ms: number): Promise<undefined> {
  return new Promise((resolveDelay) => setTimeout(() => resolveDelay(undefined), ms).unref());
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
    await Promise.all(['workspace', 'baseline.git', 'home', 'tmp', 'test-snapshot'].map((d) => rm(join(attemptDir, d), { recursive: true, force: true })));
  }
  await writeJsonAtomic(join(attemptDir, 'attempt.json'), result);
  return result;
}
