/**
 * The run's check of its tasks before any agent: a task whose repo cannot be fetched, whose
 * fail-to-pass ids the baseline test run does not report (or already pass), or whose oracle patch
 * does not apply is broken whatever an agent does. Each is found once per task, here, and its
 * attempts are recorded as `task_error` naming the field and the fix, never as an agent's FAIL.
 *
 * The baseline run happens exactly as an attempt's does (prepare: repo, setup, baseline commit;
 * then the tests in a fresh copy of the post-setup tree), in `<runDir>/preflight/<task>/`, whose
 * baseline JUnit report stays as the evidence the defects were judged on.
 */
import { readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { SandboxKind } from '../infra/sandbox/index.js';
import type { ResolvedEnvironment } from '../domain/environment/index.js';
import {
  baselineDefects,
  failToPassMissing,
  ensureGitCache,
  NpmSourceError,
  oracleDefect,
  repoDefect,
  RepoSourceError,
  taskWhere,
  type TaskWhere,
} from '../domain/tasks/index.js';
import type { Task, TaskDefect, TestRunEvidence } from '../core/types/index.js';
import { git, GitError, removeTree } from '../infra/workspace/index.js';
import type { AttemptEnv, TaskBaselineRuns } from './attempt-env.js';
import { ATTEMPT_SCRATCH_DIRS } from './attempt-record.js';
import { benchPaths, SetupCommandError, type PreparedNotice } from './bench.js';
import { openTaskBench } from './task-bench.js';
import { SHARED_TREE_DIRS, type SharedTaskTree } from './shared-baseline.js';
import { ATTEMPT_JUNIT_FILES } from '../domain/run-dir/index.js';
import { sha256 } from './plan.js';
import { schedule } from './scheduler.js';
import { runTaskTests } from './task-tests.js';
import { stateDirFaultOf } from './state-faults.js';

export interface PreflightOptions {
  /** Crucible's state directory (absolute): the git cache and tool caches live under it. */
  stateDir: string;
  /** Where each task's preflight works: `<dir>/<task>/`. */
  dir: string;
  sandbox: SandboxKind;
  /** Makes setup's and the baseline runs' executors; default createExecutor. */
  executorFactory?: AttemptEnv['executorFactory'];
  /** Check the oracle patch too (the run includes the oracle agent, or it is a validation). */
  oracle: boolean;
  concurrency: number;
  signal?: AbortSignal;
  /** How a task's fields are named in messages (its file and `tasks[i]`); default by id. */
  where?: (task: Task) => TaskWhere;
  /** docker runs: the tasks' resolved environments; setup and baseline tests run in them. */
  environments?: ReadonlyMap<string, ResolvedEnvironment>;
  /** Reuse (or build once) each task's prepared tree; default true. */
  prepareCache?: boolean;
  onPrepared?: AttemptEnv['onPrepared'];
  /**
   * Keep each fit task's prepared tree and baseline for the run's attempts (TaskBaselineRuns.tree):
   * the caller removes them with removeSharedTrees once the attempts are done. Default false:
   * only the baseline reports stay.
   */
  shareTree?: boolean;
}

export interface TaskPreflight {
  taskId: string;
  /** Empty when the task is fit to run. */
  defects: TaskDefect[];
  /**
   * Why the task could not be fully checked (its setup failed, the sandbox did): its attempts run
   * and meet the same failure there, recorded as they are today.
   */
  unchecked?: string;
  /** The task's baseline test runs, when they were usable: every attempt of the task takes them as its own. */
  baseline?: TaskBaselineRuns;
  /** With defects: the baseline's test run that showed them (its output tail), kept in the task-error attempts' records. */
  failedBaseline?: TestRunEvidence;
}

/** Checks every task once, `concurrency` at a time; the result has one entry per task, in order. */
export async function preflightTasks(tasks: readonly Task[], options: PreflightOptions): Promise<TaskPreflight[]> {
  const results = new Map<string, TaskPreflight>();
  await schedule(
    tasks,
    Math.max(1, options.concurrency),
    async (task) => {
      results.set(task.id, await preflightTask(task, options));
    },
    () => options.signal?.aborted === true,
  );
  return tasks.flatMap((t) => results.get(t.id) ?? []);
}

async function preflightTask(task: Task, options: PreflightOptions): Promise<TaskPreflight> {
  const where = options.where?.(task) ?? taskWhere(task);
  // Fetched once here; the attempts then find the commit in the shared cache.
  if (task.repo.kind === 'git') {
    try {
      await ensureGitCache(task.repo.url, task.repo.commit, join(options.stateDir, 'cache'));
    } catch (error) {
      if (error instanceof RepoSourceError) return { taskId: task.id, defects: [repoDefect(where, error.field, error.problem, error.fix)] };
      if (stateDirFaultOf(error, options)) throw error;
      return { taskId: task.id, defects: [], unchecked: messageOf(error) };
    }
  }
  // No agent works in the preflight's tree: its baseline run copies it from where it waits beside
  // the workspace path, instead of from a pristine copy of its own (one full copy fewer per task).
  const paths = benchPaths(join(options.dir, slug(task.id)), { agent: false });
  let preparedKey: string | undefined;
  let shared = false;
  const env = {
    stateDir: options.stateDir,
    sandbox: options.sandbox,
    ...(options.executorFactory ? { executorFactory: options.executorFactory } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.environments ? { environments: options.environments } : {}),
    ...(options.prepareCache === false ? { prepareCache: false } : {}),
    onPrepared: (info: PreparedNotice) => {
      preparedKey = info.key;
      options.onPrepared?.(info);
    },
  };
  try {
    const bench = await openTaskBench(task, paths, env);
    const reportFile = relative(process.cwd(), join(paths.attemptDir, ATTEMPT_JUNIT_FILES.baseline)) || ATTEMPT_JUNIT_FILES.baseline;
    let defects: TaskDefect[] = [];
    const { run, heldOut } = await bench.baselineRuns(async (run) => {
      const reported = run.cases?.map((c) => c.id) ?? [];
      // Only a JUnit report is kept as a file to look the ids up in.
      const junitFile = (task.tests.format ?? 'junit') === 'junit' ? reportFile : undefined;
      defects = baselineDefects(task, where, run.evidence, reported, junitFile);
      if (run.evidence.invalidReason === undefined && task.oracle !== undefined && failToPassMissing(task, run.evidence).length > 0) {
        const oracleReported = await oracleRunIds(task, where, options);
        if (oracleReported !== undefined) defects = baselineDefects(task, where, run.evidence, reported, junitFile, oracleReported);
      }
      return defects.length === 0 && run.evidence.invalidReason === undefined;
    });
    // Stopped while the baseline ran: what the killed command left says nothing about the task.
    if (options.signal?.aborted === true) return { taskId: task.id, defects: [], unchecked: 'interrupted' };
    // An oracle script has no dry run: the oracle's attempts themselves say whether it works.
    if (options.oracle && task.oracle?.patch !== undefined) {
      const why = await oracleApplies(paths.workspace, task.oracle.patch);
      if (why !== undefined) defects.push(oracleDefect(where, why));
    }
    if (defects.length > 0 || run.evidence.invalidReason !== undefined) return { taskId: task.id, defects, failedBaseline: run.evidence };
    // A setup whose output names its own path (a virtualenv's shebangs) was not stored in the
    // prepared cache, nor is one run with the cache off: each attempt runs such a setup itself.
    shared = options.shareTree === true && (task.setup.length === 0 || preparedKey !== undefined);
    const tree: SharedTaskTree | undefined = shared
      ? { dir: paths.workspace, baseline: bench.baseline, ignored: bench.ignored, ...(preparedKey !== undefined ? { preparedKey } : {}) }
      : undefined;
    return { taskId: task.id, defects, baseline: { run, ...(heldOut ? { heldOut } : {}), ...(tree ? { tree } : {}) } };
  } catch (error) {
    // An npm source that cannot be fetched or trusted is the task's defect, named by its field.
    if (error instanceof NpmSourceError) return { taskId: task.id, defects: [repoDefect(where, error.field, error.problem, error.fix)] };
    // A full or read-only state directory stops the run (the engine names it); anything else
    // leaves the task unchecked and its attempts meet the problem themselves.
    if (stateDirFaultOf(error, options)) throw error;
    return { taskId: task.id, defects: [], unchecked: messageOf(error) };
  } finally {
    // Only the baseline reports stay (and a shared task's tree, until the run ends): the trees are as large as the repo.
    const kept = shared ? SHARED_TREE_DIRS : [];
    await Promise.all(ATTEMPT_SCRATCH_DIRS.filter((d) => !kept.includes(d)).map((d) => removeTree(join(paths.attemptDir, d))));
    await removeIfEmpty(paths.attemptDir);
  }
}

/**
 * The ids the task's tests report with its oracle applied, in a scratch workspace of their own (the
 * preflight's tree stays as the baseline left it). Undefined when the oracle's run cannot say: then
 * the baseline's defects stand, and the oracle's attempts meet whatever is wrong with it.
 */
async function oracleRunIds(task: Task, where: TaskWhere, options: PreflightOptions): Promise<ReadonlySet<string> | undefined> {
  try {
    const [side] = await runTaskTests(task, {
      stateDir: options.stateDir,
      sandbox: options.sandbox,
      sides: ['oracle'],
      where,
      ...(options.executorFactory ? { executorFactory: options.executorFactory } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (side === undefined || side.evidence.invalidReason !== undefined) return undefined;
    return new Set(side.tests.map((t) => t.id));
  } catch (error) {
    if (options.signal?.aborted === true) throw error;
    return undefined;
  }
}

/** `git apply --check` of the patch on the post-setup tree: undefined when it applies, else git's first complaint. */
async function oracleApplies(workspace: string, patch: string): Promise<string | undefined> {
  try {
    await git({ cwd: workspace }, ['apply', '--check', '--whitespace=nowarn', '-'], { stdin: patch });
    return undefined;
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    return error.stderr.trim().split('\n')[0] || 'git apply failed';
  }
}

async function removeIfEmpty(dir: string): Promise<void> {
  const entries = await readdir(dir).catch(() => undefined);
  if (entries !== undefined && entries.length === 0) await rm(dir, { recursive: true, force: true });
}

/** A directory name per task id: readable, and distinct even for ids that read alike once cleaned. */
function slug(value: string): string {
  return `${
    value
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 50) || 'task'
  }-${sha256(value).slice(0, 8)}`;
}

function messageOf(error: unknown): string {
  // A failed setup's output excerpt stays in the preflight directory; the warning says where.
  if (error instanceof SetupCommandError) return `${error.message}; its output: ${relative(process.cwd(), error.file) || error.file}`;
  return error instanceof Error ? error.message : String(error);
}
