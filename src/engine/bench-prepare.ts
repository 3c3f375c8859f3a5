/**
 * The bench's prepared tree: the source in the workspace, the setup commands run over it in the
 * sandbox (the one setup of Crucible), committed as the baseline. A task's repo reuses setup's
 * output from the prepared cache when it can; a task's shared tree (the preflight's) is copied (or,
 * for an agent under bwrap, overlaid: agent-tree.ts) and its baseline forked; other files (ci: a
 * commit of the checkout) are written by their caller.
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ignoredManifest, setupFailure, setupOutputText, SETUP_OUTPUT_FILE, type IgnoredManifest, type SetupFailure } from '../domain/evidence/index.js';
import { execLimits, type TestRun } from '../domain/evaluation/index.js';
import { copyTaskWorkdir, type ResolvedEnvironment } from '../domain/environment/index.js';
import { materializeRepo, prepareNpmParts } from '../domain/tasks/index.js';
import { createExecutor, type ExecutorFactory, type SandboxKind, type SandboxLayout } from '../infra/sandbox/index.js';
import type { Limits, PhaseTimings, Task } from '../core/types/index.js';
import { addWorkspaceRepo, commitBaseline, copyTree, forkBaseline, listTree, removeTree, setupOutputs, type Baseline } from '../infra/workspace/index.js';
import { copyPrepared, ensurePrepared, mentionsPath, pathBound, preparedKey } from './prepared-cache.js';
import type { BenchPaths } from './bench-paths.js';
import { withDependencyCache } from './dependency-cache.js';
import type { SharedTaskTree } from './shared-baseline.js';
import { AGENT_OVERLAY_DIR, agentOverlayFits, COPIED_TREE, holdAgentTree, type AgentTree, type AgentTreeChoice } from './agent-tree.js';

/** Whether a task's prepared tree was built (setup ran) or reused from the cache. */
export interface PreparedNotice {
  taskId: string;
  key: string;
  reused: boolean;
}

/** The tests' run at the baseline and, for a spec with them, the held-out tests'. */
export interface BaselineRuns {
  run: TestRun;
  heldOut?: TestRun;
}

/** Where the bench's tree comes from. */
export type BenchSource =
  /** A task's repo (with its image's workdir and npm parts); setup's output reused from the prepared cache when it can be. */
  | {
      kind: 'task';
      task: Task;
      /** Crucible's state directory (absolute): the git, tool and prepared caches live under it. */
      stateDir: string;
      environment?: ResolvedEnvironment;
      /** Default true (`--no-prepare-cache` turns it off). */
      prepareCache?: boolean;
      onPrepared?: (notice: PreparedNotice) => void;
    }
  /** A copy of the task's tree the preflight prepared and committed once, the baseline forked for this bench's objects. */
  | { kind: 'shared'; taskId: string; tree: SharedTaskTree; onPrepared?: (notice: PreparedNotice) => void }
  /** Files the caller writes into the empty workspace (ci: base exported from the checkout). */
  | { kind: 'files'; fill: (workspace: string) => Promise<void> };

/** Where and how the bench's commands run. */
export interface BenchSandbox {
  kind: SandboxKind;
  /** Default createExecutor. */
  executorFactory?: ExecutorFactory;
  /** Kills the running command (setup, a test run). */
  signal?: AbortSignal;
  /**
   * What a setup command or a test run is shown, but the limits: `baselineGitDir` is absent during
   * setup; `alsoWritable` holds the phase's own directories (a tool cache, the results directory).
   */
  layout: (phase: { baselineGitDir?: string; alsoWritable: string[] }) => Omit<SandboxLayout, 'limits'>;
  /** Whether a change that cannot be checked out is the change's doing (TestBench.changeCaused). */
  changeCaused?: (error: unknown) => boolean;
  /** An agent will work on the prepared tree, and may do so in an overlay held for it (agent-tree.ts). */
  agentOverlay?: boolean;
}

/** Where prepare's time went: the parts of PhaseTimings.prepareMs. */
export type PrepareTimings = Required<Pick<PhaseTimings, 'copyMs' | 'baselineCommitMs'>> & Pick<PhaseTimings, 'setupMs'>;

export interface Prepared {
  baseline: Baseline;
  /** Ignored files of the prepared tree, to tell which ones a change touched (empty for `files`). */
  ignored: IgnoredManifest;
  timings: PrepareTimings;
  /** How the agent's workspace is given: an overlay held until released, or the prepared tree (a copy) itself. */
  agentTree: AgentTree;
}

/**
 * A setup command failed. The message is one line (the command, how it ended, the line that says
 * why); `failure.excerpt` is the output that shows the reason, also written to `file`
 * (SETUP_OUTPUT_FILE in the bench's directory); `timings` are the parts of prepare that ran.
 */
export class SetupCommandError extends Error {
  override readonly name = 'SetupCommandError';
  constructor(
    readonly failure: SetupFailure,
    readonly file: string,
    readonly timings: Partial<PrepareTimings>,
  ) {
    super(failure.message);
  }
}

/** The source in the workspace, set up and committed; the pristine copy made unless the paths share one. */
export async function prepareTree(
  spec: { setup: readonly string[]; limits: Limits },
  source: BenchSource,
  sandbox: BenchSandbox,
  paths: BenchPaths,
): Promise<Prepared> {
  const lap = stopwatch();
  // A directory left by an interrupted run is not evidence of anything: start clean.
  await removeTree(paths.attemptDir);
  await Promise.all(['home', 'tmp'].map((d) => mkdir(join(paths.attemptDir, d), { recursive: true })));
  const agent = agentTreeChoice(sandbox, paths);
  if (source.kind === 'shared') return fromShared(source, paths, agent, lap);
  await mkdir(paths.workspace, { recursive: true });
  let outputs: string[] = [];
  let setupMs: number | undefined;
  let ignored: IgnoredManifest = new Map();
  if (source.kind === 'task') {
    const cache = join(source.stateDir, 'cache');
    await materializeRepo(source.task.repo, paths.workspace, cache);
    await copyTaskWorkdir(source.task, source.environment, paths.workspace);
    await prepareNpmParts(source.task, paths.workspace, cache);
  } else await source.fill(paths.workspace);
  const copyMs = lap();
  if (spec.setup.length > 0) {
    const setup = (): Promise<void> =>
      runSetup(spec, sandbox, paths, source.kind === 'task' ? join(source.stateDir, 'cache', 'tools') : undefined, { copyMs }, lap);
    outputs = source.kind === 'task' ? await setupCached(source, sandbox.kind, paths.workspace, setup, sandbox.signal) : (await setup(), []);
    setupMs = lap();
  }
  const baseline = await commitBaseline(paths.workspace, join(paths.attemptDir, 'baseline.git'), join(paths.attemptDir, 'store.git'), outputs);
  if (source.kind === 'task') {
    ignored = await ignoredManifest(baseline, paths.workspace);
    await addWorkspaceRepo(paths.workspace, baseline);
  }
  // The agent works on this very tree, whose stat data the baseline index holds (so git re-reads
  // only what the agent touched); every test run works on a copy of the pristine one. An overlay
  // shows the same inodes, so the prepared tree just moves under it as its lower layer.
  let agentTree = COPIED_TREE;
  if (paths.pristineShared !== true) {
    if (await agentOverlayFits(agent)) {
      await rename(paths.workspace, paths.pristine);
      agentTree = await holdAgentTree(agent);
    } else await copyTree(paths.workspace, paths.pristine);
  }
  return { baseline, ignored, agentTree, timings: { copyMs, ...(setupMs !== undefined ? { setupMs } : {}), baselineCommitMs: lap() } };
}

/** The agent's tree over the bench's pristine tree: its lower layer when it is an overlay. */
function agentTreeChoice(sandbox: BenchSandbox, paths: BenchPaths): AgentTreeChoice {
  return {
    sandbox: sandbox.kind,
    // A fake executor (tests of something else) would not enter the holder.
    allowed: sandbox.agentOverlay === true && sandbox.executorFactory === undefined,
    lower: paths.pristine,
    workspace: paths.workspace,
    scratch: join(paths.attemptDir, AGENT_OVERLAY_DIR),
  };
}

/** The workspace a fresh copy of the task's shared tree (or an overlay of it), over a fork of its baseline. */
async function fromShared(source: Extract<BenchSource, { kind: 'shared' }>, paths: BenchPaths, agent: AgentTreeChoice, lap: () => number): Promise<Prepared> {
  const { tree } = source;
  const baseline = await forkBaseline(tree.baseline, join(paths.attemptDir, 'store.git'));
  const baselineCommitMs = lap();
  // Last: nothing may fail once a holder runs, or it would outlive the bench until the harness ends.
  const overlaid = { ...agent, lower: tree.dir };
  const agentTree = (await agentOverlayFits(overlaid)) ? await holdAgentTree(overlaid) : (await copyTree(tree.dir, paths.workspace), COPIED_TREE);
  if (tree.preparedKey !== undefined) source.onPrepared?.({ taskId: source.taskId, key: tree.preparedKey, reused: true });
  return { baseline, ignored: tree.ignored, agentTree, timings: { copyMs: lap(), baselineCommitMs } };
}

/** Setup through the prepared cache: run here and stored, or its stored output copied in; returns what setup produced. */
async function setupCached(
  source: Extract<BenchSource, { kind: 'task' }>,
  sandbox: SandboxKind,
  workspace: string,
  setup: () => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  const { task } = source;
  const listed = await listTree(workspace);
  const build = async (): Promise<string[]> => {
    await setup();
    return setupOutputs(listed, workspace);
  };
  const root = join(source.stateDir, 'cache', 'prepared');
  const imageId = source.environment?.imageId;
  const key = preparedKey({ source: listed.digest, setup: task.setup, sandbox, ...(imageId ? { imageId } : {}) });
  if (source.prepareCache === false || pathBound(root, key)) return build();
  const entry = await ensurePrepared(
    root,
    key,
    // Setup runs in this workspace (its sandbox, its paths); the cache gets a copy made before anything else runs there.
    async (tree) => {
      const deps = { root: join(source.stateDir, 'cache', 'deps'), workspace, setup: task.setup, sandbox, ...(imageId ? { imageId } : {}) };
      const made = await withDependencyCache(deps, build, signal);
      if (await mentionsPath(workspace, made)) return { outputs: made, relocatable: false };
      await copyTree(workspace, tree);
      return { outputs: made, relocatable: true };
    },
    signal,
  );
  if (entry.reused) {
    await rm(workspace, { recursive: true, force: true });
    await copyPrepared(entry, workspace);
  }
  if (entry.stored) source.onPrepared?.({ taskId: task.id, key, reused: entry.reused });
  return entry.outputs;
}

/**
 * The setup commands in the workspace, in the sandbox, with the network (they install); the first
 * that fails throws SetupCommandError. `toolCache`: package managers' caches shared across benches.
 */
async function runSetup(
  spec: { setup: readonly string[]; limits: Limits },
  sandbox: BenchSandbox,
  paths: BenchPaths,
  toolCache: string | undefined,
  ran: Pick<PrepareTimings, 'copyMs'>,
  lap: () => number,
): Promise<void> {
  if (toolCache !== undefined) await mkdir(toolCache, { recursive: true });
  const cacheEnv: Record<string, string> =
    toolCache !== undefined ? { npm_config_cache: join(toolCache, 'npm'), PIP_CACHE_DIR: join(toolCache, 'pip'), XDG_CACHE_HOME: toolCache } : {};
  const layout = { ...sandbox.layout({ alsoWritable: toolCache !== undefined ? [toolCache] : [] }), limits: execLimits(spec.limits) };
  const executor = (sandbox.executorFactory ?? createExecutor)(sandbox.kind, layout);
  try {
    for (const command of spec.setup) {
      const result = await executor.exec({
        argv: ['sh', '-c', command],
        cwd: paths.workspace,
        env: { ...cacheEnv, CI: 'true' },
        timeoutMs: spec.limits.setupTimeoutMs,
        network: 'host',
        ...(sandbox.signal ? { signal: sandbox.signal } : {}),
      });
      if (result.exitCode === 0) continue;
      // The reason is rarely the last line (npm ends with a note about its log): keep what shows it.
      const failure = setupFailure(command, result, spec.limits.setupTimeoutMs);
      const file = join(paths.attemptDir, SETUP_OUTPUT_FILE);
      await writeFile(file, setupOutputText(failure));
      throw new SetupCommandError(failure, file, { ...ran, setupMs: lap() });
    }
  } finally {
    await executor.close();
  }
}

function stopwatch(): () => number {
  let started = performance.now();
  return () => {
    const now = performance.now();
    const ms = Math.round(now - started);
    started = now;
    return ms;
  };
}
