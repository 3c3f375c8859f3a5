/** What every phase of an attempt reads: the run's settings for it, and where its agent may write. */
import { dirname, join, resolve } from 'node:path';
import type { AgentPrepared } from '../domain/agents/index.js';
import type { WriteRoots } from '../domain/checks/index.js';
import type { ResolvedEnvironment } from '../domain/environment/index.js';
import type { ExecutorFactory, SandboxKind } from '../infra/sandbox/index.js';
import type { GuardMode, Task } from '../core/types/index.js';
import type { RunModels } from './gateway-lifecycle.js';
import type { BaselineRuns, PreparedNotice } from './bench-prepare.js';
import { benchPaths, type BenchPaths } from './bench-paths.js';
import type { SharedTaskTree } from './shared-baseline.js';

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

/** A task's test runs at the baseline, and the tree the preflight built them on. */
export interface TaskBaselineRuns extends BaselineRuns {
  /** The task's prepared tree and baseline, built once by the preflight: every attempt starts from a copy (shared-baseline.ts). */
  tree?: SharedTaskTree;
}

/** Where an attempt (or a task's preflight) keeps its trees, all inside `attemptDir`. */
export function attemptPaths(attemptDir: string): BenchPaths {
  return benchPaths(attemptDir, { agent: true });
}

/** Where an attempt's agent may write, as the unsafe-command rules read it (the online guard uses the same). */
export function attemptWriteRoots(task: Pick<Task, 'sourceFile' | 'repo'>, paths: Pick<BenchPaths, 'workspace' | 'attemptDir'>, stateDir: string): WriteRoots {
  return {
    workspace: paths.workspace,
    home: join(paths.attemptDir, 'home'),
    tmp: join(paths.attemptDir, 'tmp'),
    protected: [resolve(stateDir), paths.attemptDir, dirname(task.sourceFile), ...(task.repo.kind === 'local' ? [task.repo.path] : [])],
  };
}
