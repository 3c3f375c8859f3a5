import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import type { Agent, AgentPrepared, ModelSpec } from '../domain/agents/index.js';
import { resolveRunAgent } from '../domain/redteam/index.js';
import { InputError, OptionError } from '../core/errors.js';
import { profileHash, type AgentProfile } from '../domain/agents/index.js';
import type { AttemptPlan, AttemptResult, Task, TaskDefect } from '../core/types/index.js';
import { aggregateRun } from '../domain/stats/index.js';
import { ATTEMPT_SCRATCH_DIRS, runAttempt, type AttemptEnv, type PreparedNotice } from './attempt.js';
import { writeRunManifest } from '../domain/manifest/index.js';
import { RunPool, type PoolStore } from '../infra/gateway/index.js';
import { checkSmallestRequests } from './request-floor.js';
import { checkModelSpecs, checkReplayCassettes, startRunModels, type ModelRunOptions, type RunModels } from './gateway-lifecycle.js';
import { runAttempts, type AttemptRunner, type LoopObserver } from './attempt-loop.js';
import { openRunHistory, type RunHistory } from './history-sink.js';
import { acquireRunLock } from './lock.js';
import { expandPlan, hashedSettings, newRunId, type Plan } from './plan.js';
import { planDifferences, reconcile, type Reconciled } from './resume.js';
import { removeLeftovers } from './leftovers.js';
import {
  appendCheckpoint,
  checkpointEntry,
  createRunDir,
  hasPlan,
  PLAN_SCHEMA_VERSION,
  readAttemptBytes,
  readPlanFile,
  runFile,
  runsDir,
  runsDirOf,
  slimAttempt,
  writeAttemptRecord,
  writePlanFile,
  writeSummaryFile,
  type GradePredictionsRef,
  type RunKind,
  type RunPlanFile,
  type SlimAttempt,
} from '../domain/run-dir/index.js';
import { taskRepoKeys, taskWhere, type TaskSelection, type TaskWhere } from '../domain/tasks/index.js';
import { preflightTasks, type TaskPreflight } from './preflight.js';
import { removeSharedTrees } from './shared-baseline.js';
import { RunBudget } from './run-budget.js';
import { StateFaultWatch, withStateDirFaults } from './state-faults.js';
import { taskErrorAttempt } from './task-error.js';
import { buildSummary, type RunSummaryFile } from './summary.js';
import { runFailurePatterns } from '../domain/failures/index.js';
import { checkEnvironmentSandbox, resolveRunEnvironments, type RunEnvironments } from './environments.js';
import { checkRepoPlacement } from './repo-placement.js';
import { runAdaptive, type AdaptiveRunOptions, type AdaptiveSummary } from './adaptive-run.js';

/** Per-attempt settings a run passes to every attempt (sandbox kind, grading options). */
export type AttemptSettings = Omit<AttemptEnv, 'runDir' | 'stateDir' | 'signal' | 'models' | 'onPrepared'>;

export type { AttemptRunner, RunEnd } from './attempt-loop.js';
export type { RunSummaryFile } from './summary.js';

export interface RunStartInfo {
  runId: string;
  runDir: string;
  planned: number;
  /** Finished attempts taken over from the checkpoint of a resumed run. */
  reused: number;
  toRun: number;
  concurrency: number;
  resumed: boolean;
  /** Recorded attempts whose attempt.json failed its hash check, or retried harness errors; they are among `toRun`. */
  rerun: Reconciled['rerun'];
  /** Recorded attempts a forced resume dropped because the new plan does not have them. */
  superseded: number;
}

/** What a front end (the CLI's progress view) is told while a run goes on. Every hook is optional. */
export interface RunObserver extends LoopObserver {
  onStart?(info: RunStartInfo): void;
  /** An attempt finished and is checkpointed. */
  onAttemptDone?(result: AttemptResult): void;
  onWarning?(message: string): void;
  /** The preflight starts checking `tasks` tasks (repo, baseline tests, oracle patch) before any agent. */
  onPreflight?(info: { tasks: number }): void;
  /** The preflight found a task broken: its attempts are recorded as `task_error` and never run. */
  onTaskError?(taskId: string, defects: readonly TaskDefect[]): void;
  /** docker runs: one line of resolving the tasks' images (found, pulled, built or cached, and the build's output). */
  onEnvironment?(line: string): void;
  /** A task's prepared tree (repo + setup output) was built, or reused from the cache, for an attempt or the preflight. */
  onPrepared?(info: PreparedNotice): void;
  /** An agent's program is being installed before the run (npm): one line per step, as it starts. */
  onAgentSetup?(line: string): void;
}

export interface RunOptions {
  /** The task-set path as the user gave it, shown in reports. */
  taskSetFile: string;
  /** Its absolute path, which resume loads the tasks from; default taskSetFile resolved. */
  taskSetPath?: string;
  /** Tasks to run, already selected, in plan order. */
  tasks: Task[];
  /** The filters that selected them, recorded in plan.json. */
  selection?: TaskSelection;
  agents: string[];
  /** Attempts per task and agent (`--runs`). */
  trials: number;
  /** Crucible's state directory, `.crucible` by default. */
  stateDir: string;
  settings: AttemptSettings;
  /** Attempts in flight at once; default min(cores, 4). */
  concurrency?: number;
  /** Stop scheduling after the first attempt that does not pass. */
  failFast?: boolean;
  /**
   * Continue this run: check its config, reuse its finished attempts, run the rest. `retryErrors`
   * also reruns the attempts that ended as harness errors, replacing their records.
   */
  resume?: { runId: string; force?: boolean; retryErrors?: boolean };
  /** Aborting stops scheduling; running attempts get `graceMs` to finish, then are aborted. */
  signal?: AbortSignal;
  /** Aborting aborts running attempts at once (a second Ctrl-C). */
  killSignal?: AbortSignal;
  graceMs?: number;
  observer?: RunObserver;
  /** Record the run in `<stateDir>/history.db`; default true. */
  history?: boolean;
  /** Seeds the bootstrap and Monte Carlo draws of the statistics. */
  seed?: number;
  /** Runs one attempt: runAttempt, unless a test or benchmark substitutes an in-process fake. */
  runAttempt?: AttemptRunner;
  /**
   * Called once when the run stops starting attempts because a cap on the whole run was reached or
   * the state directory failed: a runner that queued attempts ahead (the distributed queue)
   * withdraws those nobody took, and throws AttemptWithdrawn for them.
   */
  onHalted?: () => void;
  resolveAgent?: (spec: string) => Agent;
  /** Agent profiles `agents` may name (`claude-code`, `claude-code:<model>`); see loadAgentCatalog. */
  profiles?: ReadonlyMap<string, AgentProfile>;
  /** Id for a new run; default newRunId(). */
  runId?: string;
  /** Model agents: gateway mode, cassettes, limits (see gateway-lifecycle.ts). */
  models?: ModelRunOptions;
  /**
   * Check every task once before any attempt (preflight.ts); default true unless `runAttempt` is
   * substituted, since a fake runner has no real repo or tests to check.
   */
  preflight?: boolean;
  /** Each task's position in its task-set file, so task errors name `tasks[i]`; by id otherwise. */
  taskIndex?: ReadonlyMap<string, number>;
  /**
   * A suite run's task-set name per task id: recorded in plan.json, and statistics get a per-task-set
   * breakdown (`stats.byTaskSet`). Task errors then name each task's own task-set file.
   */
  taskSets?: ReadonlyMap<string, string>;
  /** Fewer attempts for some agents than `trials` (validate: one `nop`, `trials` `oracle`). */
  agentTrials?: Readonly<Record<string, number>>;
  /** Leaves (task, agent) pairs out of the plan (validate --adversarial: only the attacks that apply to a task). */
  only?: (taskId: string, agent: string) => boolean;
  /** What the run is for, recorded in plan.json; a `validate` run lives in `<stateDir>/validate/`. */
  kind?: RunKind;
  /** The queue URL of a distributed run (`--queue`), recorded in plan.json so `resume` reattaches; `runAttempt` runs the attempts on it. */
  queue?: string;
  /** Where the run's caps are kept when requests of other processes share them (a distributed run's Redis); default this process. */
  runPoolStore?: PoolStore;
  /** `--adaptive`: run only the planned attempts the adaptive design asks for (adaptive-run.ts); a resume takes it from plan.json. */
  adaptive?: AdaptiveRunOptions;
  /** A `crucible grade` run's predictions: recorded in plan.json, their digest in the config hash. */
  predictions?: GradePredictionsRef;
}

export { runsDirOf, type RunKind };

export interface RunOutcome {
  summary: RunSummaryFile;
  /** Every finished attempt in plan order, slimmed (full records are in attempt.json and the history). */
  attempts: SlimAttempt[];
  runDir: string;
  /** Tasks behind the attempts, for reports that need repo keys or metadata. */
  tasks: Task[];
  /** Tasks the preflight found broken, with what to fix; their attempts are `task_error`. */
  taskErrors: Array<{ taskId: string; defects: TaskDefect[] }>;
}

export const DEFAULT_GRACE_MS = 10_000;

export function defaultConcurrency(): number {
  return Math.max(1, Math.min(availableParallelism(), 4));
}

/**
 * Expands the plan (or takes over a run's checkpoint on resume), runs the attempts with bounded
 * concurrency, checkpoints and records each as it finishes, and writes summary.json with the
 * statistics. Never loses a finished attempt: a crash at any point leaves a run that resumes.
 * A full, read-only or vanished state directory stops the run with a StateDirError naming it;
 * attempts that finished before stay recorded.
 */
export async function executeRun(options: RunOptions): Promise<RunOutcome> {
  const runId = options.resume?.runId ?? options.runId ?? newRunId();
  const stateDir = resolve(options.stateDir);
  return withStateDirFaults({ stateDir, runDir: join(runsDir(stateDir), runId), runId }, () => execute({ ...options, runId }));
}

/** What a run is, once its options are checked: everything the steps of `execute` share. */
interface RunSetup {
  options: RunOptions;
  concurrency: number;
  stateDir: string;
  runId: string;
  kind: RunKind;
  runDir: string;
  agents: ReadonlyMap<string, Agent>;
  tasks: ReadonlyMap<string, Task>;
  usedProfiles: AgentProfile[];
  /** The attempt settings and model options as plan.json records them (never the environment). */
  settings: Record<string, unknown>;
  models: Record<string, unknown> | undefined;
  plan: Plan;
  modelSpecs: ModelSpec[];
  /** Where a task's errors point: its own task-set file in a suite. */
  whereOf: (task: Task) => TaskWhere;
}

/** Records one attempt (checkpoint, history, budget) and says whether the run must stop starting attempts. */
interface RunRecorder {
  record(result: AttemptResult, task: Task | undefined): Promise<boolean>;
  halted(): boolean;
  faults: StateFaultWatch;
  runBudget: RunBudget;
}

/** What checking the pending tasks found: broken ones (never run) and the baseline runs the rest share. */
interface TaskChecks {
  broken: Map<string, TaskDefect[]>;
  environments: RunEnvironments;
  taskBaselines: Map<string, NonNullable<TaskPreflight['baseline']>>;
}

async function execute(options: RunOptions): Promise<RunOutcome> {
  const run = setUpRun(options, checkedConcurrency(options));
  await checkBeforeStart(run);
  const prepared = await prepareAgents(run);
  const fresh = await createOrFindRunDir(run);
  // The run's caps, held by every model request of every attempt at the gateway (run-pool.ts).
  const runLimits = options.models?.runLimits;
  const runPool = runLimits?.maxCostUsd !== undefined || runLimits?.maxTokens !== undefined ? new RunPool(runLimits, options.runPoolStore) : undefined;
  const release = await acquireRunLock(run.runDir, run.runId);
  let history: RunHistory | undefined;
  let runModels: RunModels | undefined;
  try {
    const models = await startRunModels([...run.agents.values()], options.models, runPool);
    runModels = models;
    const previous = await readResumedPlan(run);
    history = options.history === false ? undefined : openRunHistory(join(run.stateDir, 'history.db'), (m) => options.observer?.onWarning?.(m));
    const { reconciled, planFile } = await takeOverCheckpoint(run, previous, fresh, history);
    const results = new Map<string, SlimAttempt>(reconciled.reused);
    const toRun = run.plan.attempts.filter((a) => !results.has(a.attemptId));
    if (previous) await checkReplayCassettes(toRun, (spec) => run.agents.get(spec) as Agent, options.models);
    announceStart(run, { results, toRun, reconciled, resumed: previous !== undefined });
    const recorder = await createRecorder(run, history, results, runPool);
    const checks = await checkPendingTasks(run, toRun, recorder);
    const loopEnd = await runPending(run, { previous, toRun, results, checks, recorder, prepared, runModels: models });
    // The machine stopped the run: say so instead of summarising a run that could not go on.
    recorder.faults.check();
    return await finishRun(run, { planFile, reconciled, results, loopEnd, runBudget: recorder.runBudget, broken: checks.broken, history });
  } finally {
    history?.close();
    await runModels?.close();
    // The tasks' shared trees served every attempt (finished or interrupted): they go before the lock does.
    await removeSharedTrees(runFile(run.runDir, 'preflight'));
    await release();
  }
}

/** The options a run cannot start with, as one OptionError; the concurrency to run at otherwise. */
function checkedConcurrency(options: RunOptions): number {
  const concurrency = options.concurrency ?? defaultConcurrency();
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new OptionError([{ field: 'concurrency', value: String(concurrency) }], 'must be a whole number ≥ 1');
  if (!Number.isInteger(options.trials) || options.trials < 1)
    throw new OptionError([{ field: 'trials', value: String(options.trials) }], 'must be a whole number ≥ 1');
  if (options.agents.length === 0) throw new OptionError([{ field: 'agents' }], 'none given', 'add an agent');
  const duplicate = options.agents.find((a, i) => options.agents.indexOf(a) !== i);
  if (duplicate !== undefined) throw new OptionError([{ field: 'agents', value: duplicate }], 'given twice', 'list each agent once; use {trials} for repeats');
  return concurrency;
}

/** The agents resolved, the plan expanded and hashed: nothing is written yet. */
function setUpRun(options: RunOptions, concurrency: number): RunSetup {
  const resolveAgent = options.resolveAgent ?? ((spec: string) => resolveRunAgent(spec, options.profiles));
  const agents = new Map(options.agents.map((spec) => [spec, resolveAgent(spec)]));
  const usedProfiles = [...new Set(options.agents.map((spec) => options.profiles?.get(spec.split(':')[0] as string)).filter((p) => p !== undefined))];
  const stateDir = resolve(options.stateDir);
  const runId = options.resume?.runId ?? options.runId ?? newRunId();
  const kind = options.kind ?? 'run';
  const settings = { ...options.settings } as Record<string, unknown>;
  // The environment (API keys) is never written; the rest lets a resume use the same model options.
  const models = options.models ? (Object.fromEntries(Object.entries(options.models).filter(([k]) => k !== 'env')) as Record<string, unknown>) : undefined;
  // A suite's tasks come from several files: each task's errors name its own.
  const whereOf = (task: Task) => taskWhere(task, options.taskIndex?.get(task.id), options.taskSets?.has(task.id) ? task.sourceFile : options.taskSetFile);
  return {
    options,
    concurrency,
    stateDir,
    runId,
    kind,
    runDir: join(runsDirOf(stateDir, kind), runId),
    agents,
    tasks: new Map(options.tasks.map((t) => [t.id, t])),
    usedProfiles,
    settings,
    models,
    plan: planOf(options, runId, settings, models, usedProfiles),
    modelSpecs: [...agents.values()].flatMap((a) => (a.modelSpec ? [a.modelSpec] : [])),
    whereOf,
  };
}

/** The attempts to run, with the config hash that a resume must find again. */
function planOf(
  options: RunOptions,
  runId: string,
  settings: Record<string, unknown>,
  models: Record<string, unknown> | undefined,
  usedProfiles: AgentProfile[],
): Plan {
  const { agentTrials, only } = options;
  // A profile changed under the same name is another agent: its hash is part of the config, so resume notices.
  const profileHashes = usedProfiles.length > 0 ? { profiles: Object.fromEntries(usedProfiles.map((p) => [p.name, profileHash(p)])) } : {};
  // Graded predictions are the agents' work: other patches under the same model names are another run.
  const predictionsHash = options.predictions ? { predictions: options.predictions.sha256 } : {};
  const hashed = hashedSettings({ ...settings, ...(agentTrials ? { agentTrials } : {}), ...profileHashes, ...predictionsHash }, models);
  const expanded = expandPlan(runId, options.tasks, options.agents, options.trials, hashed);
  const kept = (a: AttemptPlan): boolean => a.trial < (agentTrials?.[a.agent] ?? options.trials) && (only === undefined || only(a.taskId, a.agent));
  return agentTrials || only ? { ...expanded, attempts: expanded.attempts.filter(kept).map((a, index) => ({ ...a, index })) } : expanded;
}

/** The design's looks are fixed when the run starts: a resume keeps the batch plan.json recorded. */
function adaptiveOf(run: RunSetup, previous: RunPlanFile | undefined): AdaptiveRunOptions | undefined {
  const adaptive = run.options.adaptive ?? previous?.adaptive;
  if (adaptive === undefined) return undefined;
  return { ...adaptive, batch: previous?.adaptive?.batch ?? run.options.adaptive?.batch ?? run.concurrency };
}

/** plan.json: a new run's, or a resumed run's with this resume appended. */
function planFileOf(run: RunSetup, previous: RunPlanFile | undefined, reconciled: Reconciled | undefined): RunPlanFile {
  const { options, plan, usedProfiles, models } = run;
  const adaptive = adaptiveOf(run, previous);
  const predictions = options.predictions ?? previous?.predictions;
  return {
    schemaVersion: PLAN_SCHEMA_VERSION,
    runId: run.runId,
    ...(run.kind === 'validate' ? { kind: run.kind } : {}),
    createdAt: previous?.createdAt ?? new Date().toISOString(),
    taskSet: previous?.taskSet ?? options.taskSetFile,
    taskSetPath: options.taskSetPath ?? resolve(options.taskSetFile),
    agents: options.agents,
    ...(usedProfiles.length > 0 ? { profiles: usedProfiles } : {}),
    trials: options.trials,
    settings: run.settings,
    ...(models ? { models } : {}),
    selection: options.selection ?? previous?.selection ?? {},
    ...(options.taskSets && options.taskSets.size > 0 ? { taskSets: Object.fromEntries(options.taskSets) } : {}),
    ...(options.agentTrials ? { agentTrials: { ...options.agentTrials } } : {}),
    ...(options.queue !== undefined ? { queue: options.queue } : {}),
    ...(adaptive ? { adaptive } : {}),
    ...(predictions ? { predictions } : {}),
    tasks: plan.tasks,
    configHash: plan.configHash,
    resumes: [...(previous?.resumes ?? []), ...(previous && reconciled ? [resumeEntry(plan, previous, reconciled)] : [])],
    attempts: plan.attempts,
  };
}

function resumeEntry(plan: Plan, previous: RunPlanFile, reconciled: Reconciled): NonNullable<RunPlanFile['resumes']>[number] {
  return {
    at: new Date().toISOString(),
    forced: previous.configHash !== plan.configHash,
    previousConfigHash: previous.configHash,
    reused: reconciled.reused.size,
    superseded: reconciled.superseded.length,
  };
}

/**
 * What a run cannot start without, checked before the run directory exists, so a run that cannot
 * start stops here and leaves nothing behind: Docker for tasks in an image, the repos' placement,
 * the model keys and the smallest request, and (new runs) every replayed attempt's recording.
 */
async function checkBeforeStart(run: RunSetup): Promise<void> {
  const { options } = run;
  await checkEnvironmentSandbox(options.tasks, options.settings.sandbox, run.whereOf);
  checkRepoPlacement(options.tasks, run.stateDir, run.whereOf);
  if (run.modelSpecs.length > 0) {
    const checked = checkModelSpecs(run.modelSpecs, options.models ?? {});
    checkSmallestRequests([...run.agents.values()], checked.pricing, checked.limits, options.models?.runLimits);
  }
  // A replay needs every planned attempt's recording; a resume checks only what it will run.
  if (!options.resume) await checkReplayCassettes(run.plan.attempts, (spec) => run.agents.get(spec) as Agent, options.models);
}

/** Agent programs installed and their versions taken, once per run, before the run directory exists. */
async function prepareAgents(run: RunSetup): Promise<Map<string, AgentPrepared>> {
  const { options } = run;
  const prepared = new Map<string, AgentPrepared>();
  for (const [spec, agent] of run.agents) {
    if (!agent.prepare) continue;
    const onProgress = (line: string): void => options.observer?.onAgentSetup?.(line);
    prepared.set(
      spec,
      await agent.prepare({ stateDir: run.stateDir, sandbox: options.settings.sandbox, ...(options.signal ? { signal: options.signal } : {}), onProgress }),
    );
  }
  return prepared;
}

/** A new run's directory, created with its plan.json (returned); a resumed run's, found. */
async function createOrFindRunDir(run: RunSetup): Promise<RunPlanFile | undefined> {
  const { runDir, runId } = run;
  if (run.options.resume) {
    if (!hasPlan(runDir))
      throw new OptionError(
        [{ field: 'resume.runId', value: runId }],
        `no plan.json in ${runDir}, so there is nothing to resume`,
        'check the run id and {stateDir}',
      );
    return undefined;
  }
  if (existsSync(runDir)) throw new InputError(`run ${runId} already exists in ${runsDirOf(run.stateDir, run.kind)} (fix: resume it, or start a new run)`);
  const fresh = planFileOf(run, undefined, undefined);
  // The run directory appears with its plan.json or not at all, so a crash here never leaves a run that cannot resume.
  await createRunDir(runDir, fresh);
  return fresh;
}

/** A resumed run's plan.json, refused when it was planned with another config and the resume is not forced. */
async function readResumedPlan(run: RunSetup): Promise<RunPlanFile | undefined> {
  const { options, runId } = run;
  if (!options.resume) return undefined;
  const previous = await readPlanFile(run.runDir, runId);
  const differences = planDifferences(previous, { ...run.plan, agents: options.agents, trials: options.trials, settings: run.settings, models: run.models });
  if (differences.length > 0 && !options.resume.force) {
    throw new OptionError(
      [{ field: 'resume.runId', value: runId }],
      `was planned with another config (${differences.join('; ')})`,
      'add {resume.force} to keep the attempts that still match and run the rest, or start a new run',
    );
  }
  return previous;
}

/**
 * Resume: take over what the checkpoint proves finished, and re-record it in the history, which a
 * crash between the checkpoint line and the history write may have missed. Either way the run is
 * recorded in the history with its plan.
 */
async function takeOverCheckpoint(
  run: RunSetup,
  previous: RunPlanFile | undefined,
  fresh: RunPlanFile | undefined,
  history: RunHistory | undefined,
): Promise<{ reconciled: Reconciled; planFile: RunPlanFile }> {
  const { runId, runDir, plan, options } = run;
  const taskOf = (taskId: string): Task | undefined => run.tasks.get(taskId);
  const pendingHistory: AttemptResult[] = [];
  const flushHistory = (): void => history?.recordAttempts(runId, pendingHistory.splice(0), taskOf);
  const onReused = (a: AttemptResult): void => {
    pendingHistory.push(a);
    if (pendingHistory.length >= 500) flushHistory();
  };
  const reconciled: Reconciled = previous
    ? await reconcile(runDir, plan, onReused, { retryErrors: options.resume?.retryErrors })
    : { reused: new Map(), rerun: [], superseded: [], retried: [], malformed: 0 };
  // What a killed run left (temporary files, unfinished attempts' scratch trees, dead staging dirs).
  if (previous) await removeLeftovers(run.stateDir, runDir, new Set(reconciled.reused.keys()));
  const planFile = previous ? planFileOf(run, previous, reconciled) : (fresh as RunPlanFile);
  if (previous) await writePlanFile(runDir, planFile);
  history?.recordRun({
    runId,
    kind: run.kind,
    taskSet: planFile.taskSet,
    createdAt: planFile.createdAt,
    planned: plan.attempts.length,
    agents: options.agents,
    configHash: plan.configHash,
  });
  const dropped = [...reconciled.superseded, ...reconciled.retried];
  if (dropped.length > 0) history?.deleteAttempts(runId, dropped);
  flushHistory();
  return { reconciled, planFile };
}

function announceStart(
  run: RunSetup,
  state: { results: ReadonlyMap<string, SlimAttempt>; toRun: readonly AttemptPlan[]; reconciled: Reconciled; resumed: boolean },
): void {
  const { observer } = run.options;
  const { reconciled } = state;
  observer?.onStart?.({
    runId: run.runId,
    runDir: run.runDir,
    planned: run.plan.attempts.length,
    reused: state.results.size,
    toRun: state.toRun.length,
    concurrency: run.concurrency,
    resumed: state.resumed,
    rerun: reconciled.rerun,
    superseded: reconciled.superseded.length,
  });
  if (reconciled.malformed > 0) observer?.onWarning?.(`${reconciled.malformed} checkpoint line(s) were torn or repeated (a crash mid-write) and were dropped`);
}

/**
 * The one way a finished attempt enters the run: attempt.json and the checkpoint line, then the
 * run's caps, the history and the results. A state directory that fails, or a cap reached, halts
 * the run (and tells a runner that queued attempts ahead, once).
 */
async function createRecorder(
  run: RunSetup,
  history: RunHistory | undefined,
  results: Map<string, SlimAttempt>,
  runPool: RunPool | undefined,
): Promise<RunRecorder> {
  const { options, runDir, runId } = run;
  const faults = new StateFaultWatch({ stateDir: run.stateDir, runDir, runId });
  // --max-cost-total / --max-tokens-total: reused attempts spent their share already.
  const runBudget = new RunBudget(options.models?.runLimits);
  for (const reused of results.values()) {
    runBudget.note(reused);
    const usage = reused.agentResult?.usage;
    if (usage) await runPool?.keep(reused.attemptId, { tokens: usage.inputTokens + usage.outputTokens, costUsd: usage.costUsd ?? 0 });
  }
  // A cap is reached by finished attempts, or by requests billed at the gateway while attempts run.
  const halted = (): boolean => faults.halted() || runBudget.reached() !== undefined || runPool?.reached() !== undefined;
  let haltNoted = false;
  const noteHalt = (): void => {
    if (haltNoted || !halted()) return;
    haltNoted = true;
    options.onHalted?.();
  };
  const record = async (result: AttemptResult, task: Task | undefined): Promise<boolean> => {
    try {
      const hash = await ensureAttemptFile(runDir, result);
      await appendCheckpoint(runDir, checkpointEntry(result, hash));
    } catch (error) {
      options.observer?.onWarning?.(`attempt ${result.attemptId} could not be checkpointed (${message(error)}); it will run again on resume`);
      faults.noteRecordFailure(error);
      noteHalt();
      return false;
    }
    faults.noteAttempt(result);
    runBudget.note(result);
    // Workers bill the run's pool elsewhere: what they billed so far decides whether more may start.
    await runPool?.refresh().catch(() => undefined);
    noteHalt();
    history?.recordAttempt(runId, result, task);
    results.set(result.attemptId, slimAttempt(result));
    options.observer?.onAttemptDone?.(result);
    return true;
  };
  return { record, halted, faults, runBudget };
}

/**
 * docker: each pending task's image, found, pulled or built once for the whole run, before any
 * preflight or attempt runs in it; one that cannot be had is a task error, like a broken repo.
 * Broken tasks are found once, before any agent: their attempts are recorded as task errors and
 * never run. Each task's baseline test runs, taken once here, serve all its attempts.
 */
async function checkPendingTasks(run: RunSetup, toRun: readonly AttemptPlan[], recorder: RunRecorder): Promise<TaskChecks> {
  const { options } = run;
  const { observer, signal } = options;
  const pendingTasks = new Set(toRun.map((a) => a.taskId));
  const environments = await resolveRunEnvironments(
    options.tasks.filter((t) => pendingTasks.has(t.id)),
    options.settings.sandbox,
    run.whereOf,
    (line) => observer?.onEnvironment?.(line),
  );
  const checkable = toRun.filter((a) => !environments.defects.has(a.taskId));
  const checked = (options.preflight ?? options.runAttempt === undefined) ? await preflight(run, checkable, environments) : [];
  const broken = new Map([...environments.defects, ...checked.filter((c) => c.defects.length > 0).map((c) => [c.taskId, c.defects] as const)]);
  for (const [taskId, defects] of environments.defects) observer?.onTaskError?.(taskId, defects);
  for (const c of checked) {
    if (c.defects.length > 0) observer?.onTaskError?.(c.taskId, c.defects);
    // An interrupt cuts preflights short too: that is not worth a warning per task.
    else if (c.unchecked !== undefined && !(signal?.aborted ?? false))
      observer?.onWarning?.(`task ${c.taskId} could not be checked before the run (${c.unchecked}); its attempts run and meet the same problem`);
  }
  const failedBaselines = new Map(checked.flatMap((c) => (c.failedBaseline ? [[c.taskId, c.failedBaseline] as const] : [])));
  for (const item of toRun) {
    const defects = broken.get(item.taskId);
    if (defects && !(signal?.aborted ?? false))
      await recorder.record(
        taskErrorAttempt(item, options.settings.sandbox, defects, new Date(), failedBaselines.get(item.taskId)),
        run.tasks.get(item.taskId),
      );
  }
  const taskBaselines = new Map(checked.flatMap((c) => (c.baseline ? [[c.taskId, c.baseline] as const] : [])));
  return { broken, environments, taskBaselines };
}

/** The preflight of the tasks `toRun` has attempts of (repo, baseline tests, oracle patch). */
async function preflight(run: RunSetup, toRun: readonly AttemptPlan[], environments: RunEnvironments): Promise<TaskPreflight[]> {
  const { options } = run;
  const ids = new Set(toRun.map((a) => a.taskId));
  const pending = options.tasks.filter((t) => ids.has(t.id));
  if (pending.length === 0) return [];
  options.observer?.onPreflight?.({ tasks: pending.length });
  return preflightTasks(pending, {
    stateDir: run.stateDir,
    dir: runFile(run.runDir, 'preflight'),
    sandbox: options.settings.sandbox,
    ...(options.settings.executorFactory ? { executorFactory: options.settings.executorFactory } : {}),
    oracle: run.kind === 'validate' || options.agents.includes('oracle'),
    concurrency: run.concurrency,
    ...(options.signal ? { signal: options.signal } : {}),
    where: run.whereOf,
    ...(environments.resolved.size > 0 ? { environments: environments.resolved } : {}),
    ...(options.settings.prepareCache === false ? { prepareCache: false } : {}),
    onPrepared: (info) => options.observer?.onPrepared?.(info),
    shareTree: true,
  });
}

type LoopEnd = Awaited<ReturnType<typeof runAttempts>>;

/** The attempts of the tasks that are not broken: all of them, or those an adaptive design asks for. */
async function runPending(
  run: RunSetup,
  state: {
    previous: RunPlanFile | undefined;
    toRun: readonly AttemptPlan[];
    results: Map<string, SlimAttempt>;
    checks: TaskChecks;
    recorder: RunRecorder;
    prepared: Map<string, AgentPrepared>;
    runModels: RunModels | undefined;
  },
): Promise<LoopEnd & { adaptive?: AdaptiveSummary }> {
  const { options, concurrency } = run;
  const { broken, environments, taskBaselines } = state.checks;
  const runBatch = (batch: AttemptPlan[]): Promise<LoopEnd> =>
    runAttempts({
      attempts: batch,
      concurrency,
      runner: options.runAttempt ?? runAttempt,
      env: {
        ...options.settings,
        runDir: run.runDir,
        stateDir: run.stateDir,
        models: state.runModels,
        taskBaselines,
        prepared: state.prepared,
        onPrepared: (info) => options.observer?.onPrepared?.(info),
        ...(environments.resolved.size > 0 ? { environments: environments.resolved } : {}),
      },
      task: (id) => run.tasks.get(id) as Task,
      agent: (spec) => run.agents.get(spec) as Agent,
      failFast: options.failFast,
      signal: options.signal,
      killSignal: options.killSignal,
      graceMs: options.graceMs ?? DEFAULT_GRACE_MS,
      observer: options.observer,
      halted: state.recorder.halted,
      record: state.recorder.record,
    });
  const adaptiveOptions = adaptiveOf(run, state.previous);
  if (!adaptiveOptions) return runBatch(state.toRun.filter((a) => !broken.has(a.taskId)));
  const maxCostUsd = options.models?.runLimits?.maxCostUsd;
  return runAdaptive({
    options: adaptiveOptions,
    attempts: run.plan.attempts,
    agents: options.agents,
    taskIds: options.tasks.map((t) => t.id).filter((id) => !broken.has(id)),
    results: state.results,
    batch: adaptiveOptions.batch ?? concurrency,
    ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
    runBatch,
  });
}

/** The statistics, summary.json, the run's manifest and the history's run row: the run's last evidence. */
async function finishRun(
  run: RunSetup,
  state: {
    planFile: RunPlanFile;
    reconciled: Reconciled;
    results: ReadonlyMap<string, SlimAttempt>;
    loopEnd: LoopEnd & { adaptive?: AdaptiveSummary };
    runBudget: RunBudget;
    broken: ReadonlyMap<string, TaskDefect[]>;
    history: RunHistory | undefined;
  },
): Promise<RunOutcome> {
  const { options, runDir, runId, plan } = run;
  const { ended, failedFast, adaptive } = state.loopEnd;
  const attempts = plan.attempts.flatMap((a) => state.results.get(a.attemptId) ?? []);
  // aggregateRun's defaults (k values, interval floor) are the ones `show`, the dashboard and the report use too.
  const stats = aggregateRun(attempts, {
    seed: options.seed,
    taskRepo: taskRepoKeys(options.tasks),
    ...(options.taskSets && options.taskSets.size > 0 ? { taskSet: options.taskSets } : {}),
  });
  // Read from each attempt's trajectory, command log and diff (docs/failure-patterns.md).
  const failurePatterns = runFailurePatterns(runDir, attempts, run.tasks);
  const summary = buildSummary({
    runId,
    taskSet: state.planFile.taskSet,
    createdAt: state.planFile.createdAt,
    configHash: plan.configHash,
    planned: plan.attempts.length,
    attempts,
    reused: state.reconciled.reused.size,
    ended,
    failedFast,
    stats,
    ...(state.runBudget.active ? { runBudget: state.runBudget.report() } : {}),
    ...(adaptive ? { adaptive } : {}),
    failurePatterns,
  });
  await writeSummaryFile(runDir, summary);
  // Every attempt is done with the tasks' shared trees: scratch, not evidence, so they go before the manifest is taken.
  await removeSharedTrees(runFile(runDir, 'preflight'));
  // Last of the run's evidence: it commits to summary.json, plan.json, the checkpoint and each attempt's manifest.
  await writeRunManifest({
    runDir,
    runId,
    tasks: options.tasks,
    agents: options.agents,
    profiles: run.usedProfiles,
    sandbox: options.settings.sandbox,
    ...(run.modelSpecs.length > 0 ? { models: options.models ?? {} } : {}),
    attemptIds: attempts.map((a) => a.attemptId),
    scratch: ATTEMPT_SCRATCH_DIRS,
  });
  state.history?.finishRun(runId, {
    finishedAt: summary.finishedAt,
    executed: summary.executed,
    stoppedEarly: summary.stoppedEarly,
    counts: summary.counts,
    stats,
  });
  const taskErrors = [...state.broken].map(([taskId, defects]) => ({ taskId, defects }));
  return { summary, attempts, runDir, tasks: options.tasks, taskErrors };
}

/**
 * attempt.json as runAttempt wrote it, hashed for the checkpoint. When the runner could not write
 * it (a crash, a failed record step), the engine writes the result it got, so every checkpointed
 * attempt has its file.
 */
async function ensureAttemptFile(runDir: string, result: AttemptResult): Promise<string> {
  const existing = await readAttemptBytes(runDir, result.attemptId);
  if (existing !== undefined && matches(existing.bytes, result)) return existing.hash;
  await writeAttemptRecord(runDir, result);
  const written = await readAttemptBytes(runDir, result.attemptId);
  if (written === undefined) throw new Error('attempt.json vanished after it was written');
  return written.hash;
}

function matches(bytes: Buffer, result: AttemptResult): boolean {
  try {
    const onDisk = JSON.parse(bytes.toString('utf8')) as Partial<AttemptResult>;
    return onDisk.attemptId === result.attemptId && onDisk.finishedAt === result.finishedAt;
  } catch {
    return false;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
