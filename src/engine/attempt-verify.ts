/**
 * The attempt's evidence phases around the agent: the baseline test run before it, and after it
 * the verification that the checks judge. attempt.ts orchestrates; src/domain/evaluation does the test
 * runs and the verification; this file holds what only an attempt has: the workspace the agent
 * left (measured, captured through git), its outside writes, and the attempt's paths.
 *
 * Every test run happens in a fresh copy the harness builds at the workspace's path: the pristine
 * post-setup tree with one git tree checked out over it (the baseline's, or the agent's change
 * with its protected paths put back), a fresh HOME, /tmp and results directory. Nothing is read
 * from the agent's workspace except through git, which records symlinks as symlinks.
 */
import { dirname, join, resolve } from 'node:path';
import {
  captureChange,
  type CommandEvent,
  finishFsGuard,
  type FsGuard,
  ignoredManifest,
  type IgnoredManifest,
  scanWorkspace,
  describeScanLimit,
} from '../domain/evidence/index.js';
import type { WriteRoots } from '../domain/checks/index.js';
import {
  evaluateChange,
  runBaselineHeldOut as runHeldOutAtBaseline,
  runTestsOnTree,
  testsRun,
  type TestBench,
  type TestRun,
} from '../domain/evaluation/index.js';
import type { Outcome } from '../domain/grading/index.js';
import type { CheckResult, DiffStats, NotGraded, Task, TestRunEvidence } from '../core/types/index.js';
import type { TraceEvidence } from '../domain/trace/index.js';
import type { Baseline } from '../infra/workspace/index.js';
import type { AttemptEnv } from './attempt.js';
import { ATTEMPT_JUNIT_FILES } from '../domain/run-dir/index.js';
import { sandboxLayout } from './sandbox-layout.js';
import { agentCaused, isMachineError } from './agent-caused.js';

export { AgentChangeError } from './agent-caused.js';
export type { TestRun } from '../domain/evaluation/index.js';

export interface AttemptPaths {
  attemptDir: string;
  /** Where the agent works, and where every test run's fresh copy is built: one path for all. */
  workspace: string;
  /** The post-setup tree as the baseline committed it; copied from, and moved into place for the last test run unless `pristineShared`. */
  pristine: string;
  /**
   * `pristine` is not this attempt's own copy but a tree the harness keeps for others too (the
   * task's shared tree; the preflight's own tree, set beside during its baseline run): only ever
   * copied from, never moved or written, and never shown to a sandbox (it lies in the state directory).
   */
  pristineShared?: boolean;
  /** The agent's workspace once the agent has stopped, moved aside. */
  agentWorkspace: string;
  /** Outside the workspace, emptied before every test run: where `$CRUCIBLE_JUNIT` points. */
  resultsDir: string;
}

/** Where an attempt's test runs happen: its paths, its sandbox layout, its task's limits. */
export function attemptBench(
  task: Task,
  paths: AttemptPaths,
  baseline: Baseline,
  env: Pick<AttemptEnv, 'stateDir' | 'sandbox' | 'signal' | 'environments' | 'executorFactory'>,
): TestBench {
  const { attemptDir, workspace, resultsDir } = paths;
  return {
    baseline,
    pristine: paths.pristine,
    ...(paths.pristineShared ? { pristineShared: true } : {}),
    workspace,
    home: join(attemptDir, 'test-home'),
    tmp: join(attemptDir, 'test-tmp'),
    resultsDir,
    reportDir: attemptDir,
    limits: task.limits,
    layout: sandboxLayout({
      task,
      stateDir: env.stateDir,
      workspace,
      attemptDir,
      baselineGitDir: baseline.gitDir,
      alsoWritable: [resultsDir],
      environments: env.environments,
    }),
    sandbox: env.sandbox,
    ...(env.executorFactory ? { executorFactory: env.executorFactory } : {}),
    ...(env.signal ? { signal: env.signal } : {}),
    // The agent's files can fail a checkout in ways only the machine should: those stay the harness's.
    changeCaused: (error) => !isMachineError(error, attemptDir),
  };
}

/** Runs the task's tests once on the baseline, before the agent, in a copy of their own. */
export async function runBaselineTests(task: Task, paths: AttemptPaths, baseline: Baseline, env: AttemptEnv): Promise<TestRun> {
  return runTestsOnTree(attemptBench(task, paths, baseline, env), baseline.tree, testsRun(task.tests, ATTEMPT_JUNIT_FILES.baseline));
}

/** Runs the task's tests once on `tree` (say, the oracle's change), in a fresh copy, as verification does. */
export async function runTaskTestsOnTree(task: Task, paths: AttemptPaths, baseline: Baseline, env: AttemptEnv, tree: string): Promise<TestRun> {
  return runTestsOnTree(attemptBench(task, paths, baseline, env), tree, testsRun(task.tests, ATTEMPT_JUNIT_FILES.tests));
}

/** The held-out tests once on the baseline (src/domain/evaluation says why); undefined for a task without them. */
export async function runBaselineHeldOut(task: Task, paths: AttemptPaths, baseline: Baseline, env: AttemptEnv): Promise<TestRun | undefined> {
  if (!task.heldOut) return undefined;
  return runHeldOutAtBaseline(attemptBench(task, paths, baseline, env), task.heldOut, ATTEMPT_JUNIT_FILES.baselineHeldOut);
}

export interface VerifyInput {
  task: Task;
  paths: AttemptPaths;
  baseline: Baseline;
  /** Ignored files of the pristine tree, to tell which ones the agent touched. */
  ignored: IgnoredManifest;
  fsGuard: FsGuard;
  env: AttemptEnv;
  commands: CommandEvent[];
  sandboxEnforcesFs: boolean;
  baselineRun?: TestRun;
  baselineHeldOut?: TestRun;
}

/** What a trace records of a verified attempt (src/domain/trace/): the checks' input, and what only verification could read. */
export type VerifiedEvidence = TraceEvidence;

export type Verified =
  | {
      kind: 'verified';
      diff: DiffStats;
      notGraded: NotGraded;
      tests: TestRunEvidence;
      heldOut?: TestRunEvidence;
      checks: CheckResult[];
      evidence: VerifiedEvidence;
    }
  /** The agent's workspace or change was past a limit: nothing else is judged. */
  | Extract<Outcome, { kind: 'over_limit' }>;

/**
 * After the agent stopped: its workspace is measured, its change captured as a tree, the
 * protected paths put back, the tests run in a fresh copy of that tree, held-out tests in another,
 * added lines read from the patch, and every check judged.
 */
export async function verifyAttempt(input: VerifyInput): Promise<Verified> {
  const { task, paths, baseline, env } = input;
  const limits = task.limits.resources;
  const outsideWrites = await finishFsGuard(input.fsGuard);

  const scan = await scanWorkspace(paths.agentWorkspace, { maxFiles: limits.workspaceFiles, maxBytes: limits.workspaceBytes });
  if (scan.exceeded) {
    const what = describeScanLimit(scan, { maxFiles: limits.workspaceFiles, maxBytes: limits.workspaceBytes });
    return { kind: 'over_limit', limit: scan.exceeded, message: `the agent left the workspace with ${what}` };
  }
  const capture = await agentCaused('capture the change', paths.attemptDir, () =>
    captureChange({ baseline, workTree: paths.agentWorkspace, nestedGit: scan.nestedGit, maxFiles: limits.changeFiles, maxBytes: limits.changeBytes }),
  );
  if (!capture.ok) return { kind: 'over_limit', limit: capture.exceeded, message: capture.detail };
  const evaluated = await evaluateChange({
    spec: task,
    bench: attemptBench(task, paths, baseline, env),
    change: capture.tree,
    files: { patch: 'diff.patch', tests: ATTEMPT_JUNIT_FILES.tests, heldOut: ATTEMPT_JUNIT_FILES.heldOut },
    commands: input.commands,
    writeRoots: attemptWriteRoots(task, paths, env.stateDir),
    sandboxEnforcesFs: input.sandboxEnforcesFs,
    outsideWrites,
    ...(input.baselineRun ? { baselineRun: input.baselineRun } : {}),
    ...(input.baselineHeldOut ? { baselineHeldOut: input.baselineHeldOut } : {}),
    // git reads the agent's own ignore files here: what it refuses of them is the agent's doing too.
    ignored: {
      before: input.ignored,
      after: () => agentCaused('list what the change ignores', paths.attemptDir, () => ignoredManifest(baseline, paths.agentWorkspace)),
    },
  });
  const { diff, tests, heldOut, checks, checkInput, blobs } = evaluated;
  const evidence: VerifiedEvidence = { checkInput, blobs, ...(heldOut?.cases ? { heldOutCases: heldOut.cases } : {}) };
  return {
    kind: 'verified',
    diff,
    notGraded: evaluated.notGraded,
    tests: tests.evidence,
    heldOut: heldOut?.evidence,
    checks,
    evidence,
  };
}

/** Where an attempt's agent may write, as the unsafe-command rules read it (the online guard uses the same). */
export function attemptWriteRoots(
  task: Pick<Task, 'sourceFile' | 'repo'>,
  paths: Pick<AttemptPaths, 'workspace' | 'attemptDir'>,
  stateDir: string,
): WriteRoots {
  return {
    workspace: paths.workspace,
    home: join(paths.attemptDir, 'home'),
    tmp: join(paths.attemptDir, 'tmp'),
    protected: [resolve(stateDir), paths.attemptDir, dirname(task.sourceFile), ...(task.repo.kind === 'local' ? [task.repo.path] : [])],
  };
}
