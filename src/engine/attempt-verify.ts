/**
 * The attempt's evidence phases around the agent: the baseline test run before it, and after it
 * the verification that the checks judge. attempt.ts orchestrates; this file does the work.
 *
 * Every test run happens in a fresh copy the harness builds at the workspace's path: the pristine
 * post-setup tree with one git tree checked out over it (the baseline's, or the agent's change
 * with its protected paths put back), a fresh HOME, /tmp and results directory. Nothing is read
 * from the agent's workspace except through git, which records symlinks as symlinks.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { detectContent, effectivePolicy, runChecks, type CheckInput } from '../checks/index.js';
import {
  MAX_PATCH_BYTES,
  readAddedLines,
  captureChange,
  type CommandEvent,
  collectDiff,
  finishFsGuard,
  type FsGuard,
  ignoredManifest,
  notGraded,
  type IgnoredManifest,
  runTests,
  classifyAsMissing,
  protectTests,
  runRewardVerifier,
  scanWorkspace,
  describeScanLimit,
} from '../evidence/index.js';
import type { WriteRoots } from '../checks/unsafe-command-rules.js';
import { createExecutor, type SandboxLayout } from '../sandbox/index.js';
import type {
  CheckResult,
  DiffStats,
  NotGraded,
  ResourceLimitName,
  RewardSpec,
  Task,
  TestCaseResult,
  TestFormat,
  TestReportSource,
  TestRunEvidence,
} from '../types/index.js';
import { changeBlobs, type ChangeBlobs } from '../trace/record.js';
import { materializeTree, overlayDirectory, removeTree, withoutSetupOutputs, type Baseline } from '../workspace/index.js';
import type { AttemptEnv } from './attempt.js';
import { ATTEMPT_JUNIT_FILES } from '../run-dir/index.js';
import { sandboxLayout } from './sandbox-layout.js';
import { agentCaused, isMachineError } from './agent-caused.js';

export { AgentChangeError } from './agent-caused.js';

export interface AttemptPaths {
  attemptDir: string;
  /** Where the agent works, and where every test run's fresh copy is built: one path for all. */
  workspace: string;
  /** A copy of the post-setup tree as the baseline committed it; copied from, and moved into place for the last test run. */
  pristine: string;
  /** The agent's workspace once the agent has stopped, moved aside. */
  agentWorkspace: string;
  /** Outside the workspace, emptied before every test run: where `$CRUCIBLE_JUNIT` points. */
  resultsDir: string;
}

export interface TestRun {
  evidence: TestRunEvidence;
  /** Parsed cases, when there was a readable report. */
  cases?: TestCaseResult[];
}

interface TestRunSpec {
  command: string;
  junit?: string;
  format?: TestFormat;
  report?: TestReportSource;
  failToPass: string[];
  passToPass: string[] | 'all_others';
  reportName: string;
  /** The tree holds the agent's change: one that cannot be checked out is an unusable run, the agent's. */
  agentTree?: boolean;
  /** `tests.kind: reward` (carried over from task.tests): run the reward verifier instead of reading JUnit. */
  reward?: RewardSpec;
}

/** Per-command limits of the sandbox, from the task's resource limits. */
export function execLimits(task: Task): NonNullable<SandboxLayout['limits']> {
  const r = task.limits.resources;
  return { pids: r.pids, memoryBytes: r.memoryBytes, fileSizeBytes: r.fileSizeBytes, ...(r.cpuSeconds !== undefined ? { cpuSeconds: r.cpuSeconds } : {}) };
}

/**
 * Builds a fresh copy of `tree` at the workspace path and runs one test command in it. The last
 * run of an attempt takes the pristine tree itself (`lastUse`): one copy fewer.
 */
async function runTestsOnTree(
  task: Task,
  paths: AttemptPaths,
  baseline: Baseline,
  env: AttemptEnv,
  tree: string,
  spec: TestRunSpec,
  lastUse = false,
): Promise<TestRun> {
  const { attemptDir, workspace, resultsDir } = paths;
  const home = join(attemptDir, 'test-home');
  const tmp = join(attemptDir, 'test-tmp');
  // The verifier's files join the tree only for its own run, as held-out tests do: whatever the
  // agent put at their paths gives way to them.
  // Mounted instead (Harbor's /tests), read-only, in this run's layout alone.
  const verifierMount =
    spec.reward?.files !== undefined && spec.reward.mount !== undefined ? { source: spec.reward.files, target: spec.reward.mount, readOnly: true } : undefined;
  if (spec.reward?.files !== undefined && !verifierMount) tree = await overlayDirectory(baseline, tree, spec.reward.files);
  try {
    await materializeTree({ pristine: paths.pristine, dest: workspace, baseline, tree, consume: lastUse });
  } catch (error) {
    if (!spec.agentTree || isMachineError(error, attemptDir)) throw error;
    return { evidence: unusableRun(spec, `the agent's change could not be checked out: ${error instanceof Error ? error.message : String(error)}`) };
  }
  // Nothing one test run writes outside the workspace reaches the next one either.
  for (const dir of [home, tmp, resultsDir]) {
    await removeTree(dir);
    await mkdir(dir, { recursive: true });
  }
  const base = sandboxLayout({
    task,
    stateDir: env.stateDir,
    workspace,
    attemptDir,
    baselineGitDir: baseline.gitDir,
    alsoWritable: [resultsDir],
    environments: env.environments,
  });
  const layout: SandboxLayout = {
    ...base,
    ...(verifierMount ? { mounts: [...(base.mounts ?? []), verifierMount] } : {}),
    // A container-native task's verifier may install its tools in its own fresh container (Harbor's test.sh does).
    ...(spec.reward && base.environment?.workdir !== undefined ? { environment: { ...base.environment, writableRoot: true } } : {}),
    home,
    tmp,
    limits: execLimits(task),
  };
  const executor = createExecutor(env.sandbox, layout);
  if (spec.reward) {
    const run = await runRewardVerifier({
      executor,
      workspace,
      command: spec.command,
      resultsDir,
      timeoutMs: task.limits.testTimeoutMs,
      ...(spec.reward.network !== undefined ? { network: spec.reward.network } : {}),
      ...(env.signal ? { signal: env.signal } : {}),
    }).finally(() => executor.close());
    await removeTree(resultsDir);
    return run;
  }
  const { evidence, junitXml, cases } = await runTests({
    executor,
    workspace,
    command: spec.command,
    junit: spec.junit,
    ...(spec.format !== undefined ? { format: spec.format } : {}),
    ...(spec.report !== undefined ? { report: spec.report } : {}),
    resultsDir,
    failToPass: spec.failToPass,
    passToPass: spec.passToPass,
    timeoutMs: task.limits.testTimeoutMs,
    signal: env.signal,
    // The code under test runs on the host's disk as the agent did: held to the same workspace limits.
    watch: {
      trees: [
        { root: workspace, label: 'the workspace under test' },
        { root: home, label: 'HOME under test' },
      ],
      limits: { maxFiles: task.limits.resources.workspaceFiles, maxBytes: task.limits.resources.workspaceBytes },
    },
  }).finally(() => executor.close());
  // The report is read: the directory it was written to goes, so no later phase finds it.
  await removeTree(resultsDir);
  // Only JUnit is kept as a file; a stream format's cases are the evidence, and its text is in the output tail.
  if (junitXml !== undefined) await writeFile(join(attemptDir, spec.reportName), junitXml);
  return { evidence, ...(cases ? { cases } : {}) };
}

/** Runs the task's tests once on the baseline, before the agent, in a copy of their own. */
export async function runBaselineTests(task: Task, paths: AttemptPaths, baseline: Baseline, env: AttemptEnv): Promise<TestRun> {
  return runTestsOnTree(task, paths, baseline, env, baseline.tree, { ...task.tests, reportName: ATTEMPT_JUNIT_FILES.baseline });
}

/** Runs the task's tests once on `tree` (say, the oracle's change), in a fresh copy, as verification does. */
export async function runTaskTestsOnTree(task: Task, paths: AttemptPaths, baseline: Baseline, env: AttemptEnv, tree: string): Promise<TestRun> {
  return runTestsOnTree(task, paths, baseline, env, tree, { ...task.tests, reportName: ATTEMPT_JUNIT_FILES.tests });
}

/**
 * Runs the held-out tests once on the baseline: the cases they report there are the ones that must
 * still be reported after the agent. Code under test that ends the run early, or drops cases from
 * the report, cannot then pass on the cases that remain.
 */
export async function runBaselineHeldOut(task: Task, paths: AttemptPaths, baseline: Baseline, env: AttemptEnv): Promise<TestRun | undefined> {
  const spec = task.heldOut;
  if (!spec) return undefined;
  const tree = await overlayDirectory(baseline, baseline.tree, spec.path);
  return runTestsOnTree(task, paths, baseline, env, tree, {
    command: spec.command,
    junit: spec.junit,
    ...(spec.format !== undefined ? { format: spec.format } : {}),
    ...(spec.report !== undefined ? { report: spec.report } : {}),
    failToPass: [],
    passToPass: 'all_others',
    reportName: ATTEMPT_JUNIT_FILES.baselineHeldOut,
  });
}

/** Held-out cases required by id: those that passed at the baseline (the rest fail there by design). */
function requiredHeldOut(baselineRun: TestRun | undefined): string[] {
  return [...new Set((baselineRun?.cases ?? []).filter((c) => c.status === 'passed').map((c) => c.id))];
}

/** A held-out run that reports fewer cases than at the baseline lost some: it proves nothing. */
function checkHeldOutCount(run: TestRun, baselineRun: TestRun | undefined): TestRun {
  const before = baselineRun?.evidence.invalidReason === undefined ? baselineRun?.evidence.parsed : undefined;
  if (before === undefined || run.evidence.invalidReason !== undefined || run.evidence.parsed >= before) return run;
  return {
    ...run,
    evidence: {
      ...run.evidence,
      invalidReason: `the held-out run reported ${run.evidence.parsed} test case(s), fewer than the ${before} it reported at the baseline`,
    },
  };
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

/** What a trace records of a verified attempt (src/trace/): the checks' input, and what only verification could read. */
export interface VerifiedEvidence {
  checkInput: CheckInput;
  /** Git blob ids before and after, per changed path (from the baseline and the captured tree). */
  blobs: ChangeBlobs;
  heldOutCases?: TestCaseResult[];
}

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
  | { kind: 'resource'; limit: ResourceLimitName; message: string };

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
    return { kind: 'resource', limit: scan.exceeded, message: `the agent left the workspace with ${what}` };
  }
  const capture = await agentCaused('capture the change', paths.attemptDir, () =>
    captureChange({ baseline, workTree: paths.agentWorkspace, nestedGit: scan.nestedGit, maxFiles: limits.changeFiles, maxBytes: limits.changeBytes }),
  );
  if (!capture.ok) return { kind: 'resource', limit: capture.exceeded, message: capture.detail };
  const reportPaths = [task.tests.junit, task.heldOut?.junit].filter((p): p is string => p !== undefined);
  // What setup produced is the environment: nothing the agent did to it is part of its change.
  const captured = await withoutSetupOutputs(baseline, capture.tree);
  const graded = await protectTests({ baseline, tree: captured, testPaths: task.tests.testPaths, reportPaths });

  const patchFile = join(paths.attemptDir, 'diff.patch');
  // One byte over the scan limit: a patch cut there is one the secrets scan knows is incomplete.
  const diff = await collectDiff({ gitDir: baseline.store, from: baseline.tree, to: captured, patchFile, maxPatchBytes: MAX_PATCH_BYTES + 1 });
  const newTests = graded.evidence.findings.filter((f) => f.kind === 'added').map((f) => f.path);
  // git reads the agent's own ignore files here: what it refuses of them is the agent's doing too.
  const ignoredNow = await agentCaused('list what the change ignores', paths.attemptDir, () => ignoredManifest(baseline, paths.agentWorkspace));
  const skipped = notGraded(input.ignored, ignoredNow, { dependencies: graded.dependencies, newTests });
  const tampering = graded.evidence;

  const tests = await runTestsOnTree(
    task,
    paths,
    baseline,
    env,
    graded.tree,
    { ...task.tests, reportName: ATTEMPT_JUNIT_FILES.tests, agentTree: true },
    !task.heldOut,
  );
  let heldOut: TestRun | undefined;
  if (task.heldOut) {
    const spec = task.heldOut;
    // Laid over the agent's tree only now: the agent never had the held-out files in view, and
    // whatever its change put at their paths (a file, a symlink, a directory) gives way to them.
    const tree = await overlayDirectory(baseline, graded.tree, spec.path);
    const required = requiredHeldOut(input.baselineHeldOut);
    const run = await runTestsOnTree(
      task,
      paths,
      baseline,
      env,
      tree,
      {
        command: spec.command,
        junit: spec.junit,
        format: spec.format,
        report: spec.report,
        failToPass: required,
        passToPass: 'all_others',
        reportName: ATTEMPT_JUNIT_FILES.heldOut,
        agentTree: true,
      },
      true,
    );
    heldOut = checkHeldOutCount(run, input.baselineHeldOut);
  }
  const addedLines = await readAddedLines(patchFile, diff, { gitDir: baseline.store, tree: captured });
  const policy = effectivePolicy(task);
  const checkInput: CheckInput = {
    task,
    policy,
    diff,
    tests: tests.evidence,
    cases: tests.cases,
    baselineTests: input.baselineRun?.evidence,
    baselineCases: input.baselineRun?.cases,
    heldOut: heldOut?.evidence,
    tampering,
    commands: input.commands,
    reportDir: paths.resultsDir,
    writeRoots: attemptWriteRoots(task, paths, env.stateDir),
    outsideWrites,
    sandboxEnforcesFs: input.sandboxEnforcesFs,
    // Detection reads the lines once; the checks judge its findings, as a trace replay does.
    content: detectContent(addedLines, policy.secrets.literals),
  };
  const checks = runChecks(checkInput);
  const blobs = await changeBlobs(baseline.store, baseline.tree, captured);
  const evidence: VerifiedEvidence = { checkInput, blobs, ...(heldOut?.cases ? { heldOutCases: heldOut.cases } : {}) };
  return { kind: 'verified', diff, notGraded: skipped, tests: tests.evidence, heldOut: heldOut?.evidence, checks, evidence };
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

/** A run that never happened: every listed test counts as missing. */
function unusableRun(spec: TestRunSpec, reason: string): TestRunEvidence {
  const groups = classifyAsMissing({ failToPass: spec.failToPass, passToPass: spec.passToPass });
  return {
    command: spec.command,
    exitCode: null,
    timedOut: false,
    durationMs: 0,
    parsed: 0,
    consistent: false,
    invalidReason: reason,
    ...groups,
    outputTail: '',
  };
}

/**
 * A test command that produced no usable report after the agent and none at the baseline either
 * is the task's or the harness's problem, not the agent's.
 */
export function neverRanReason(tests: TestRunEvidence, baselineRun: TestRunEvidence | undefined): string | undefined {
  if (tests.invalidReason === undefined || baselineRun?.invalidReason === undefined) return undefined;
  return `the test command gave no usable report at the baseline either (${baselineRun.invalidReason}); check tests.command`;
}
