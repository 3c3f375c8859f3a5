import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Agent, AgentPrepared } from '../domain/agents/index.js';
import {
  recordingExecutor,
  type CommandEvent,
  startFsGuard,
  ignoredManifest,
  type IgnoredManifest,
  watchTrees,
  setupFailure,
  setupOutputText,
  SETUP_OUTPUT_FILE,
  type SetupFailure,
} from '../domain/evidence/index.js';
import { judge, verifiedOutcome, type Outcome } from '../domain/grading/index.js';
import { writeTrace } from '../domain/trace/index.js';
import { TRACE_FILE } from '../domain/trace/index.js';
import { createExecutor, type ExecutorFactory } from '../infra/sandbox/index.js';
import type { SandboxKind } from '../infra/sandbox/index.js';
import { execLimits } from '../domain/evaluation/index.js';
import { materializeRepo, prepareNpmParts } from '../domain/tasks/index.js';
import {
  ATTEMPT_SCHEMA_VERSION,
  type AgentResult,
  type AttemptPlan,
  type AttemptResult,
  type CheckResult,
  type DiffStats,
  type GuardMode,
  type GuardSummary,
  type PhaseTimings,
  type ResourceLimitName,
  type Task,
  type TestRunEvidence,
} from '../core/types/index.js';
import { addWorkspaceRepo, commitBaseline, copyTree, listTree, removeTree, setupOutputs, type Baseline } from '../infra/workspace/index.js';
import { copyPrepared, ensurePrepared, mentionsPath, pathBound, preparedKey } from './prepared-cache.js';
import { withDependencyCache } from './dependency-cache.js';
import { prepareFromShared, sharedTreePaths, type SharedTaskTree } from './shared-baseline.js';
import type { RunModels } from './gateway-lifecycle.js';
import { startGuard, type GuardSession } from '../domain/guard/index.js';
import {
  AgentChangeError,
  attemptWriteRoots,
  runBaselineHeldOut,
  runBaselineTests,
  verifyAttempt,
  type AttemptPaths,
  type TestRun,
  type VerifiedEvidence,
} from './attempt-verify.js';
import { baselineDefects, taskWhere } from '../domain/tasks/index.js';
import { TaskDefectError, taskErrorMessage } from './task-error.js';
import { writeFileAtomic } from '../domain/run-dir/index.js';
import { fileSystemFull } from './disk-full.js';
import { attemptJsonText, MANIFEST_FILE, writeAttemptManifest, type ManifestSubject } from '../domain/manifest/index.js';
import { sandboxLayout } from './sandbox-layout.js';
import { copyTaskWorkdir, provenanceOf, type ResolvedEnvironment } from '../domain/environment/index.js';

export interface AttemptEnv {
  runDir: string;
  /** Crucible's state directory (`.crucible`), hidden from agents. */
  stateDir: string;
  sandbox: SandboxKind;
  /** Makes every executor of the attempt (setup, agent, test runs); default createExecutor. Tests pass a fake where the sandbox is not what they test. */
  executorFactory?: ExecutorFactory;
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
  /**
   * The run's preflight baseline test runs, by task id: taken once per task on the same post-setup
   * tree an attempt's baseline has, before any agent ran, so every attempt of the task uses them
   * instead of running its own (whatever `baselineTests` says: the run has already paid for them).
   */
  taskBaselines?: ReadonlyMap<string, TaskBaselineRuns>;
  /** What each agent's prepare step returned (by spec), once per run: recorded and mounted in every attempt. */
  prepared?: ReadonlyMap<string, AgentPrepared>;
  /**
   * docker runs: each task's environment resolved to a local image once per run, by task id. Setup,
   * the agent, the tests and the held-out tests all run in it; each attempt records its provenance.
   */
  environments?: ReadonlyMap<string, ResolvedEnvironment>;
  /**
   * Reuse a task's prepared tree (repo + setup output) across attempts, from
   * `<state>/cache/prepared/<hash>/` (default true; `--no-prepare-cache` turns it off).
   */
  prepareCache?: boolean;
  /** Told, per attempt or preflight of a task with setup, whether its prepared tree was built or reused. */
  onPrepared?: (info: PreparedNotice) => void;
  /** `--guard`: watch the agent's workspace and commands while it runs (src/domain/guard/); absent: no watcher at all. */
  guard?: GuardMode;
}

/** Whether a task's prepared tree was built (setup ran) or reused from the cache. */
export interface PreparedNotice {
  taskId: string;
  key: string;
  reused: boolean;
}

/** A task's test runs at the baseline: its tests and, when it has them, its held-out tests. */
export interface TaskBaselineRuns {
  run: TestRun;
  heldOut?: TestRun;
  /** The task's prepared tree and baseline, built once by the preflight: every attempt starts from a copy (shared-baseline.ts). */
  tree?: SharedTaskTree;
}

type Phase = 'prepare' | 'agent' | 'verify' | 'record';

class PhaseError extends Error {
  constructor(
    readonly phase: Phase,
    readonly original: unknown,
  ) {
    super(original instanceof Error ? original.message : String(original));
  }
}

/**
 * Runs one attempt end to end, never throwing:
 * prepare (workspace, setup, baseline commit, pristine copy) → baseline tests (fresh copies) →
 * agent (sandboxed, limits enforced, commands recorded, outside writes watched) → verify (change
 * captured as a tree, protected paths from the baseline, tests and held-out tests each in a fresh
 * copy) → checks → grade → record.
 */
export async function runAttempt(plan: AttemptPlan, task: Task, agent: Agent, env: AttemptEnv): Promise<AttemptResult> {
  const startedAt = new Date();
  const attemptDir = join(env.runDir, 'attempts', plan.attemptId);
  const shared = env.taskBaselines?.get(task.id);
  const paths = shared?.tree ? sharedTreePaths(attemptPaths(attemptDir), shared.tree) : attemptPaths(attemptDir);
  const timings: AttemptResult['timings'] = { prepareMs: 0, agentMs: 0, verifyMs: 0, totalMs: 0 };
  const agentInfo = env.prepared?.get(agent.name)?.info;
  const resolved = env.environments?.get(task.id);
  // The agent phase adds the image id its containers reported: the object is shared by every record below.
  const environment = resolved ? provenanceOf(resolved, task) : undefined;
  const base = {
    ...plan,
    schemaVersion: ATTEMPT_SCHEMA_VERSION,
    sandbox: env.sandbox,
    ...(agentInfo ? { agentInfo } : {}),
    ...(environment ? { environment } : {}),
    checks: [],
    timings,
    startedAt: startedAt.toISOString(),
  } satisfies Partial<AttemptResult>;
  const subject: ManifestSubject = { task, agent };
  /** Records the attempt with the verdict judge() gives its outcome: the engine never writes one itself. */
  const ended = (outcome: Outcome, fields: Partial<AttemptResult>, evidence?: VerifiedEvidence): Promise<AttemptResult> =>
    record(attemptDir, { ...base, ...fields, ...judge(outcome), finishedAt: '' }, startedAt, env, subject, { outcome, ...(evidence ? { evidence } : {}) });

  let baseline: Baseline | undefined;
  let baselineRun: TestRun | undefined;
  let baselineHeldOut: TestRun | undefined;
  let agentResult: AgentResult | undefined;
  let diff: DiffStats | undefined;
  let tests: TestRunEvidence | undefined;
  let heldOut: TestRunEvidence | undefined;
  let checks: CheckResult[] = [];
  try {
    const prepared = await timed(timings, 'prepareMs', 'prepare', () =>
      (shared?.tree ? prepareFromShared(task, shared.tree, paths, env) : prepareWorkspace(task, paths, env)).catch((error: unknown) => {
        // The parts that finished before setup failed still say where the time went.
        if (error instanceof SetupCommandError) Object.assign(timings, error.timings);
        throw error;
      }),
    );
    Object.assign(timings, prepared.timings);
    baseline = prepared.baseline;
    if (shared) ({ run: baselineRun, heldOut: baselineHeldOut } = shared);
    else if (env.baselineTests !== false) {
      ({ baselineRun, baselineHeldOut } = await timed(timings, 'baselineMs', 'prepare', () =>
        // The test runs need the workspace's path: the agent's tree waits beside it meanwhile.
        besideWorkspace(paths, async () => {
          const run = await runBaselineTests(task, paths, prepared.baseline, env);
          // The run's preflight checks this once per task; this catches what it could not (no preflight, a changed repo).
          // A run that never started proves nothing about the repo: the task's error, not a failing test.
          const defects =
            run.evidence.invalidReason === undefined || run.evidence.notStarted !== undefined
              ? baselineDefects(task, taskWhere(task), run.evidence, run.cases?.map((c) => c.id) ?? [])
              : [];
          if (defects.length > 0) throw new PhaseError('prepare', new TaskDefectError(defects, run.evidence));
          return { baselineRun: run, baselineHeldOut: await runBaselineHeldOut(task, paths, prepared.baseline, env) };
        }),
      ));
    }
    const agentRun = await timed(timings, 'agentMs', 'agent', () => runAgent(agent, task, paths, prepared.baseline, env, plan));
    agentResult = agentRun.result;
    // Like `environment`, the guard's summary goes on the shared base so every record below has it.
    if (agentRun.guarded.summary) Object.assign(base, { guard: agentRun.guarded.summary });
    if (environment && agentRun.containerImageId !== undefined) environment.containerImageId = agentRun.containerImageId;
    const verified = await timed(timings, 'verifyMs', 'verify', () =>
      verifyAttempt({
        task,
        paths,
        baseline: prepared.baseline,
        ignored: prepared.ignored,
        fsGuard: agentRun.fsGuard,
        env,
        commands: agentRun.commands,
        sandboxEnforcesFs: agentRun.enforcesFs,
        baselineRun,
        baselineHeldOut,
      }),
    ).catch((error: unknown) => {
      // A change that cannot even be captured is the agent's failure, not the harness's.
      if (error instanceof PhaseError && error.original instanceof AgentChangeError) return { kind: 'unverifiable' as const, message: error.message };
      throw error;
    });
    const early = { baselineCommit: baseline.commit, baselineTests: baselineRun?.evidence, baselineHeldOut: baselineHeldOut?.evidence, agentResult };
    // Over a limit, or a change that cannot be captured: ended before the checks.
    if (verified.kind !== 'verified') return await ended(verified, early);
    ({ diff, tests, heldOut, checks } = verified);
    const evidence = { ...early, diff, notGraded: verified.notGraded, tests, heldOut, checks };
    const outcome = verifiedOutcome({ checks, tests, baselineTests: baselineRun?.evidence, heldOut, commands: agentRun.commands, agentResult });
    const harnessError = outcome.kind === 'never_ran' ? { harnessError: { phase: 'verify' as const, message: outcome.reason } } : {};
    return await ended(outcome, { ...evidence, ...harnessError }, verified.evidence);
  } catch (error) {
    if (error instanceof PhaseError && error.original instanceof TaskDefectError) {
      const { defects } = error.original;
      const result: AttemptResult = {
        ...base,
        ...judge({ kind: 'task_defect', message: taskErrorMessage(defects) }),
        taskError: { defects: [...defects] },
        baselineCommit: baseline?.commit,
        // The baseline's run that showed the defect, output and all: what to look at to fix it.
        baselineTests: baselineRun?.evidence ?? error.original.baselineTests,
        checks,
        finishedAt: '',
      };
      return record(attemptDir, result, startedAt, env, subject, { outcome: { kind: 'task_defect', message: result.message } }).catch(() =>
        finish(result, startedAt),
      );
    }
    const phase = error instanceof PhaseError ? error.phase : 'record';
    const message = error instanceof Error ? error.message : String(error);
    const original = error instanceof PhaseError ? error.original : error;
    const detail = original instanceof SetupCommandError ? { detail: original.failure.excerpt } : {};
    const result: AttemptResult = {
      ...base,
      ...judge({ kind: 'harness_fault', phase, message }),
      // Looked at now, before record's cleanup frees space: statfs, not the message, says whether the disk was full.
      harnessError: { phase, message, ...detail, ...(fileSystemFull(env.runDir) ? { stateDiskFull: true } : {}) },
      baselineCommit: baseline?.commit,
      baselineTests: baselineRun?.evidence,
      agentResult,
      diff,
      tests,
      heldOut,
      checks,
      finishedAt: '',
    };
    return record(attemptDir, result, startedAt, env, subject, { outcome: { kind: 'harness_fault', phase, message } }).catch(() => finish(result, startedAt));
  }
}

async function timed<T>(
  timings: AttemptResult['timings'],
  key: 'prepareMs' | 'baselineMs' | 'agentMs' | 'verifyMs',
  phase: Phase,
  work: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } catch (error) {
    throw error instanceof PhaseError ? error : new PhaseError(phase, error);
  } finally {
    timings[key] = Math.round(performance.now() - started);
  }
}

/** Where an attempt (or a task's preflight) keeps its trees, all inside `attemptDir`. */
export function attemptPaths(attemptDir: string): AttemptPaths {
  return {
    attemptDir,
    workspace: join(attemptDir, 'workspace'),
    pristine: join(attemptDir, 'pristine'),
    agentWorkspace: join(attemptDir, 'agent-workspace'),
    resultsDir: join(attemptDir, 'results'),
  };
}

/** Where prepare's time went: the parts of PhaseTimings.prepareMs. */
export type PrepareTimings = Required<Pick<PhaseTimings, 'copyMs' | 'baselineCommitMs'>> & Pick<PhaseTimings, 'setupMs'>;

export interface Prepared {
  baseline: Baseline;
  ignored: IgnoredManifest;
  timings: PrepareTimings;
}

/**
 * A task's setup command failed. The message is one line (the command, how it ended, the line that
 * says why); `failure.excerpt` is the output that shows the reason, also written to
 * SETUP_OUTPUT_FILE in the attempt directory; `timings` are the parts of prepare that ran.
 */
export class SetupCommandError extends Error {
  constructor(
    readonly failure: SetupFailure,
    readonly file: string,
    readonly timings: Partial<PrepareTimings>,
  ) {
    super(failure.message);
    this.name = 'SetupCommandError';
  }
}

/**
 * The repo and its setup in the workspace, committed as the baseline and then moved aside as the
 * pristine tree that every later copy (the agent's, each test run's) is made from.
 */
export async function prepareWorkspace(
  task: Task,
  paths: AttemptPaths,
  env: Pick<AttemptEnv, 'stateDir' | 'sandbox' | 'signal' | 'environments' | 'prepareCache' | 'onPrepared' | 'executorFactory'>,
): Promise<Prepared> {
  const { attemptDir, workspace } = paths;
  let started = performance.now();
  const lap = (): number => {
    const now = performance.now();
    const ms = Math.round(now - started);
    started = now;
    return ms;
  };
  // An attempt directory left by an interrupted run is not evidence of anything: start clean.
  await removeTree(attemptDir);
  await Promise.all(['workspace', 'home', 'tmp'].map((d) => mkdir(join(attemptDir, d), { recursive: true })));
  await materializeRepo(task.repo, workspace, join(env.stateDir, 'cache'));
  await copyTaskWorkdir(task, env.environments?.get(task.id), workspace);
  await prepareNpmParts(task, workspace, join(env.stateDir, 'cache'));
  const copyMs = lap();

  let setupMs: number | undefined;
  let outputs: string[] = [];
  if (task.setup.length > 0) {
    const source = await listTree(workspace);
    const build = async (): Promise<string[]> => {
      await runSetup(task, paths, env, copyMs, lap);
      return setupOutputs(source, workspace);
    };
    const root = join(env.stateDir, 'cache', 'prepared');
    const imageId = env.environments?.get(task.id)?.imageId;
    const key = preparedKey({ source: source.digest, setup: task.setup, sandbox: env.sandbox, ...(imageId ? { imageId } : {}) });
    if (env.prepareCache === false || pathBound(root, key)) outputs = await build();
    else {
      const entry = await ensurePrepared(
        root,
        key,
        // Setup runs in this attempt's workspace (its sandbox, its paths); the cache gets a copy made before anything else runs there.
        async (tree) => {
          const deps = { root: join(env.stateDir, 'cache', 'deps'), workspace, setup: task.setup, sandbox: env.sandbox, ...(imageId ? { imageId } : {}) };
          const made = await withDependencyCache(deps, build, env.signal);
          if (await mentionsPath(workspace, made)) return { outputs: made, relocatable: false };
          await copyTree(workspace, tree);
          return { outputs: made, relocatable: true };
        },
        env.signal,
      );
      if (entry.reused) {
        await rm(workspace, { recursive: true, force: true });
        await copyPrepared(entry, workspace);
      }
      outputs = entry.outputs;
      if (entry.stored) env.onPrepared?.({ taskId: task.id, key, reused: entry.reused });
    }
    setupMs = lap();
  }
  const baseline = await commitBaseline(workspace, join(attemptDir, 'baseline.git'), join(attemptDir, 'store.git'), outputs);
  const ignored = await ignoredManifest(baseline, workspace);
  await addWorkspaceRepo(workspace, baseline);
  // The agent works on this very tree, whose stat data the baseline index holds (so git re-reads
  // only what the agent touched); every test run works on a copy of the pristine one. A pristine
  // tree kept elsewhere (the preflight's: this tree itself, set beside) needs no copy of its own.
  if (paths.pristineShared !== true) await copyTree(workspace, paths.pristine);
  const baselineCommitMs = lap();
  return { baseline, ignored, timings: { copyMs, ...(setupMs !== undefined ? { setupMs } : {}), baselineCommitMs } };
}

/** The task's setup commands, in the workspace, in the sandbox; the first that fails throws SetupCommandError. */
async function runSetup(
  task: Task,
  paths: AttemptPaths,
  env: Pick<AttemptEnv, 'stateDir' | 'sandbox' | 'signal' | 'environments' | 'executorFactory'>,
  copyMs: number,
  lap: () => number,
): Promise<void> {
  const { attemptDir, workspace } = paths;
  const toolCache = join(env.stateDir, 'cache', 'tools');
  await mkdir(toolCache, { recursive: true });
  const executor = (env.executorFactory ?? createExecutor)(
    env.sandbox,
    sandboxLayout({ task, stateDir: env.stateDir, workspace, attemptDir, alsoWritable: [toolCache], environments: env.environments }),
  );
  try {
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
        // The reason is rarely the last line (npm ends with a note about its log): keep what shows it.
        const failure = setupFailure(command, result, task.limits.setupTimeoutMs);
        const file = join(attemptDir, SETUP_OUTPUT_FILE);
        await writeFile(file, setupOutputText(failure));
        throw new SetupCommandError(failure, file, { copyMs, setupMs: lap() });
      }
    }
  } finally {
    await executor.close();
  }
}

/** Runs `work` with the workspace moved aside (a rename keeps every inode and mtime), then puts it back. */
export async function besideWorkspace<T>(paths: AttemptPaths, work: () => Promise<T>): Promise<T> {
  await rename(paths.workspace, paths.agentWorkspace);
  try {
    return await work();
  } finally {
    await removeTree(paths.workspace);
    await rename(paths.agentWorkspace, paths.workspace);
  }
}

interface AgentRun {
  result: AgentResult;
  /** Every command the agent ran, as the harness recorded it (commands.jsonl is a copy). */
  commands: CommandEvent[];
  /** Whether the sandbox made writes outside the workspace fail. */
  enforcesFs: boolean;
  /** The first sandbox limit one of the agent's commands hit, if any. */
  limitHit?: ResourceLimitName;
  fsGuard: Awaited<ReturnType<typeof startFsGuard>>;
  /** docker: the image id the agent's containers reported. */
  containerImageId?: string;
  /** With `--guard`: what the online guard saw and did, once the phase is over. */
  guarded: { summary?: GuardSummary };
}

async function runAgent(agent: Agent, task: Task, paths: AttemptPaths, baseline: Baseline, env: AttemptEnv, plan: AttemptPlan): Promise<AgentRun> {
  const { attemptDir, workspace } = paths;
  const base = sandboxLayout({ task, stateDir: env.stateDir, workspace, attemptDir, baselineGitDir: baseline.gitDir, environments: env.environments });
  // A model agent's traffic goes through a gateway session; its metering becomes the attempt's usage.
  const agentDirs = env.prepared?.get(agent.name)?.readOnly ?? [];
  const models = env.models?.openAttempt(plan, agent, { workspace, home: base.home, attemptDir, agentDirs });
  // A program run in the sandbox (a CLI agent) reaches the gateway through its socket, and its
  // installed package is shown read-only, even when it lies under the hidden state directory.
  const gateway = agent.turnsAtGateway && models ? env.models?.gateway : undefined;
  const layout = {
    ...base,
    readOnly: [...base.readOnly, ...agentDirs],
    ...(gateway ? { gateway } : {}),
    limits: execLimits(task.limits),
  };
  const controller = new AbortController();
  const guard = env.guard ? await startAttemptGuard(env.guard, task, paths, baseline, env, controller) : undefined;
  const guarded: AgentRun['guarded'] = {};
  const sandboxed = (env.executorFactory ?? createExecutor)(env.sandbox, layout);
  const executor = recordingExecutor(guard ? guard.executor(sandboxed) : sandboxed, join(attemptDir, 'commands.jsonl'), controller.signal);
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
  const watchdog = watchWorkspace(workspace, layout.home, task, controller);
  try {
    const run = agent
      .run({
        task,
        workspace,
        instruction: task.instruction,
        executor,
        attemptDir,
        home: layout.home,
        limits: { timeoutMs },
        signal: controller.signal,
        ...(models ? { model: models.access } : {}),
        reportCommands: (commands) => {
          guard?.reported(commands, workspace);
          executor.report(commands, workspace);
        },
      })
      .catch((error: unknown): AgentResult => ({ stopReason: 'error', error: error instanceof Error ? error.message : String(error) }));
    const raced = await Promise.race([run, timeout, watchdog.exceeded, ...(guard ? [guard.stopped] : [])]);
    let result: AgentResult;
    if (typeof raced === 'object' && 'rule' in raced) {
      // enforce stopped the agent on a filesystem violation; the checks judge what it left.
      const late = await Promise.race([run, delay(TIMEOUT_REPORT_GRACE_MS)]);
      result = {
        ...(late ?? {}),
        stopReason: 'error',
        error: `stopped by the online guard (enforce): ${raced.rule} ${raced.path ?? ''} (${raced.detail}), detected in ${raced.detectionMs} ms`,
      };
    } else if (typeof raced === 'object' && 'limit' in raced && !('stopReason' in raced)) {
      const late = await Promise.race([run, delay(TIMEOUT_REPORT_GRACE_MS)]);
      result = { ...(late ?? {}), stopReason: 'resource_exceeded', limit: raced.limit, error: raced.message };
    } else if (raced === 'timeout') {
      // The agent was aborted; give it a moment to return what it has (turns, tool calls), but the
      // stop stays a timeout whatever it says.
      const late = await Promise.race([run, delay(TIMEOUT_REPORT_GRACE_MS)]);
      result = { ...(late ?? {}), stopReason: 'timeout', error: `agent did not finish within ${timeoutMs} ms` };
    } else {
      result = raced;
    }
    const commands = [...executor.events()];
    const limitHit = commands.find((c) => c.limitExceeded !== undefined)?.limitExceeded;
    const containerImageId = executor.containerImageId?.();
    return {
      result: models ? models.finish(result) : result,
      commands,
      enforcesFs,
      fsGuard,
      guarded,
      ...(limitHit ? { limitHit } : {}),
      ...(containerImageId !== undefined ? { containerImageId } : {}),
    };
  } finally {
    clearTimeout(timer);
    watchdog.stop();
    env.signal?.removeEventListener('abort', onOuterAbort);
    controller.abort();
    // Nothing the agent left running survives its phase (docker: its container goes).
    await executor.close();
    // The guard reads the tree once more now that nothing runs, and writes its incident bundle.
    if (guard) guarded.summary = await guard.finish();
    // From here on the workspace is evidence: moved aside, read only through git. Without a
    // sandbox an agent can delete the workspace itself; then it left nothing.
    await rename(workspace, paths.agentWorkspace).catch(async (error: unknown) => {
      if ((error as { code?: string }).code !== 'ENOENT') throw error;
      await mkdir(paths.agentWorkspace, { recursive: true });
    });
  }
}

/** The online guard over this attempt's workspace and commands, judged by the post-hoc checks' rules. */
function startAttemptGuard(
  mode: GuardMode,
  task: Task,
  paths: AttemptPaths,
  baseline: Baseline,
  env: AttemptEnv,
  controller: AbortController,
): Promise<GuardSession> {
  return startGuard({
    mode,
    task,
    workspace: paths.workspace,
    attemptDir: paths.attemptDir,
    writeRoots: attemptWriteRoots(task, paths, env.stateDir),
    // Which paths git ignores, by the baseline's rules (the pristine tree), not the agent's edits.
    ignoreTarget: { gitDir: baseline.gitDir, workTree: paths.pristine },
    controller,
  });
}

/**
 * Measures the workspace and HOME while the agent works and stops the agent when either grows past
 * the task's disk or file-count limit. HOME is a host directory too (a tmpfs /tmp is bounded by
 * the memory limit): it gets the same limits, measured apart.
 */
function watchWorkspace(
  workspace: string,
  home: string | undefined,
  task: Task,
  controller: AbortController,
): { exceeded: Promise<{ limit: ResourceLimitName; message: string }>; stop(): void } {
  const limits = { maxFiles: task.limits.resources.workspaceFiles, maxBytes: task.limits.resources.workspaceBytes };
  const trees = [{ root: workspace, label: 'the workspace' }, ...(home ? [{ root: home, label: 'HOME' }] : [])];
  let watch: ReturnType<typeof watchTrees> | undefined;
  const exceeded = new Promise<{ limit: ResourceLimitName; message: string }>((resolveExceeded) => {
    watch = watchTrees(trees, limits, () => {
      controller.abort();
      const found = watch?.exceeded();
      if (found) resolveExceeded(found);
    });
  });
  return { exceeded, stop: () => watch?.stop() };
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

/** What an attempt leaves besides its evidence; removed unless --keep-workspace. */
export const ATTEMPT_SCRATCH_DIRS = [
  'workspace',
  'workspace.index',
  'pristine',
  'agent-workspace',
  'baseline.git',
  'store.git',
  'home',
  'tmp',
  'test-home',
  'test-tmp',
  'results',
];

/**
 * Writes the attempt's trace, then its manifest (which commits to the trace's and attempt.json's
 * bytes), then attempt.json atomically (a crash leaves the old file or none, never half of one):
 * an attempt.json on disk has both, unless a full disk left room for the record alone.
 * Exported for bench/matrix.mjs, whose instant attempts are recorded the same way.
 */
export async function record(
  attemptDir: string,
  result: AttemptResult,
  startedAt: Date,
  env: AttemptEnv,
  subject: ManifestSubject,
  judged: { outcome?: Outcome; evidence?: VerifiedEvidence } = {},
): Promise<AttemptResult> {
  finish(result, startedAt);
  await mkdir(attemptDir, { recursive: true });
  if (!env.keepWorkspace) {
    // What the agent and the code under test left (any depth, any mode) must not make this record fail.
    await Promise.all(ATTEMPT_SCRATCH_DIRS.map((d) => removeTree(join(attemptDir, d))));
  }
  // trace.jsonl: the hash-chained evidence an offline replay re-grades (src/domain/trace/).
  await writeTrace(attemptDir, result, judged, { stateDir: env.stateDir, tasksetDir: dirname(subject.task.sourceFile) });
  const json = attemptJsonText(result);
  const file = join(attemptDir, 'attempt.json');
  try {
    await writeAttemptManifest({ attemptDir, result, attemptJson: json, ...subject, scratch: ATTEMPT_SCRATCH_DIRS });
    await writeFileAtomic(file, json);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    // On a full disk the record comes first: the trace and the manifest make room for it, and
    // `manifest verify` then names the attempt as one without a manifest, which is the truth.
    await Promise.all([TRACE_FILE, MANIFEST_FILE].map((name) => rm(join(attemptDir, name), { force: true })));
    await writeFileAtomic(file, json);
  }
  return result;
}
