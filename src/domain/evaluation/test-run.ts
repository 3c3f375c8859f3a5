/**
 * The one test run of Crucible: attempts (baseline, verification, held-out), `crucible ci`,
 * `crucible tests` and the preflight all run their tests here. A fresh copy is built at the
 * workspace path from the pristine post-setup tree with one git tree checked out over it, HOME,
 * /tmp and the results directory are emptied, and the command runs in the sandbox without
 * network, watched against the workspace limits. Nothing of the tree is read but through git.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { classifyAsMissing, makeSentinelDir, removeSentinelDir, runHeldOutValues, runRewardVerifier, runTests } from '../evidence/index.js';
import { createExecutor, type ExecLimits, type ExecutorFactory, type SandboxKind, type SandboxLayout } from '../../infra/sandbox/index.js';
import type {
  HeldOutSpec,
  HeldOutValuesEvidence,
  HeldOutValuesSpec,
  Limits,
  RewardSpec,
  TestCaseResult,
  TestFormat,
  TestReportSource,
  TestRunEvidence,
  TestSpec,
} from '../../core/types/index.js';
import { overlayDirectory, removeTree, type Baseline } from '../../infra/workspace/index.js';
import { giveTree, releaseTree, type GivenTree } from './give-tree.js';

/** Where and how every test run of one evaluation happens: the same for all of its runs. */
export interface TestBench {
  baseline: Baseline;
  /** The post-setup tree as the baseline committed it: copied from, and moved into place for the last run unless `pristineShared`. */
  pristine: string;
  /**
   * The pristine tree is read by more than this evaluation (the task's tree every attempt of a run
   * copies): every run copies it and none moves it, so no test run ever writes into it.
   */
  pristineShared?: boolean;
  /** Where each fresh copy is built: one path for every run. */
  workspace: string;
  /** Emptied before every run: the code under test's HOME and /tmp. */
  home: string;
  tmp: string;
  /** Outside the workspace, emptied before every run: where `$CRUCIBLE_JUNIT` points. */
  resultsDir: string;
  /** Where the JUnit reports (and an evaluation's diff.patch) are kept. */
  reportDir: string;
  limits: Limits;
  /** The sandbox layout of a test run but its HOME, /tmp and limits (set here); `resultsDir` must be writable in it. */
  layout: Omit<SandboxLayout, 'home' | 'tmp' | 'limits'>;
  sandbox: SandboxKind;
  /** Default createExecutor. */
  executorFactory?: ExecutorFactory;
  signal?: AbortSignal;
  /**
   * Whether a tree of the change that cannot be checked out is the change's doing (the run is then
   * unusable, every listed test missing) rather than the machine's (thrown). Absent: always thrown.
   */
  changeCaused?: (error: unknown) => boolean;
  /**
   * Give each run's tree as an overlay of the pristine tree where the sandbox and the kernel allow
   * it (give-tree.ts); false: always a copy. Default true.
   */
  overlay?: boolean;
}

export interface TestRun {
  evidence: TestRunEvidence;
  /** Parsed cases, when there was a readable report. */
  cases?: TestCaseResult[];
}

export interface TestRunSpec {
  command: string;
  junit?: string;
  format?: TestFormat;
  report?: TestReportSource;
  failToPass: string[];
  passToPass: string[] | 'all_others';
  /** The JUnit report's file name in the bench's report directory. */
  reportName: string;
  /** The tree holds the change under evaluation: one that cannot be checked out may be its doing (TestBench.changeCaused). */
  changeTree?: boolean;
  /** `tests.kind: reward`: run the reward verifier instead of reading a report. */
  reward?: RewardSpec;
  /**
   * Workspace-relative files of the change under verification, for the Python sentinel (a module
   * of theirs imported by the standard library or the runner is evidence). None for a baseline run.
   */
  changeFiles?: readonly string[];
}

/** A task's (or a ci config's) tests as one run's spec. */
export function testsRun(tests: TestSpec, reportName: string): TestRunSpec {
  return {
    command: tests.command,
    ...(tests.junit !== undefined ? { junit: tests.junit } : {}),
    ...(tests.format !== undefined ? { format: tests.format } : {}),
    ...(tests.report !== undefined ? { report: tests.report } : {}),
    failToPass: tests.failToPass,
    passToPass: tests.passToPass,
    reportName,
    ...(tests.reward !== undefined ? { reward: tests.reward } : {}),
  };
}

/** Held-out tests as one run's spec: `failToPass` are the ids required of them (those that passed at the baseline). */
export function heldOutRun(spec: HeldOutSpec, reportName: string, failToPass: string[] = []): TestRunSpec {
  return {
    command: spec.command,
    ...(spec.junit !== undefined ? { junit: spec.junit } : {}),
    ...(spec.format !== undefined ? { format: spec.format } : {}),
    ...(spec.report !== undefined ? { report: spec.report } : {}),
    failToPass,
    passToPass: 'all_others',
    reportName,
  };
}

/** Per-command limits of the sandbox, from the resource limits of a task or a ci config. */
export function execLimits(limits: Pick<Limits, 'resources'>): ExecLimits {
  const r = limits.resources;
  return { pids: r.pids, memoryBytes: r.memoryBytes, fileSizeBytes: r.fileSizeBytes, ...(r.cpuSeconds !== undefined ? { cpuSeconds: r.cpuSeconds } : {}) };
}

/**
 * Builds a fresh copy of `tree` at the workspace path and runs one test command in it. The last
 * run of an evaluation takes the pristine tree itself (`lastUse`): one copy fewer.
 */
export async function runTestsOnTree(bench: TestBench, tree: string, spec: TestRunSpec, lastUse = false): Promise<TestRun> {
  const { baseline, home, tmp } = bench;
  // The verifier's files join the tree only for its own run, as held-out tests do: whatever the
  // change put at their paths gives way to them. Mounted instead (Harbor's /tests), read-only, in this run's layout alone.
  const verifierMount =
    spec.reward?.files !== undefined && spec.reward.mount !== undefined ? { source: spec.reward.files, target: spec.reward.mount, readOnly: true } : undefined;
  if (spec.reward?.files !== undefined && !verifierMount) tree = await overlayDirectory(baseline, tree, spec.reward.files);
  let given: GivenTree;
  try {
    given = await freshCopy(bench, tree, lastUse);
  } catch (error) {
    if (!spec.changeTree || !bench.changeCaused?.(error)) throw error;
    return { evidence: unusableRun(spec, `the agent's change could not be checked out: ${error instanceof Error ? error.message : String(error)}`) };
  }
  const base = bench.layout;
  // The Python sentinel's files, outside the workspace and read-only in the sandbox: nothing the
  // code under test does changes what the next Python start of the run loads.
  const sentinelDir = await makeSentinelDir();
  const layout: SandboxLayout = {
    ...base,
    readOnly: [...base.readOnly, sentinelDir],
    ...(verifierMount ? { mounts: [...(base.mounts ?? []), verifierMount] } : {}),
    // A container-native task's verifier may install its tools in its own fresh container (Harbor's test.sh does).
    ...(spec.reward && base.environment?.workdir !== undefined ? { environment: { ...base.environment, writableRoot: true } } : {}),
    home,
    tmp,
    limits: execLimits(bench.limits),
    ...(given.overlay ? { overlay: given.overlay } : {}),
  };
  try {
    const run = await runInSandbox(bench, spec, layout, sentinelDir, given.written);
    return { ...run, evidence: { ...run.evidence, tree: given.provision } };
  } finally {
    await Promise.all([removeSentinelDir(sentinelDir), releaseTree(bench, given)]);
  }
}

/** `tree` given at the workspace path over the pristine tree (give-tree.ts); HOME, /tmp and the results directory emptied. */
async function freshCopy(bench: TestBench, tree: string, lastUse: boolean): Promise<GivenTree> {
  const given = await giveTree(bench, tree, lastUse);
  // Nothing one run writes outside the workspace reaches the next one either; what the code
  // under test left may be deeper than PATH_MAX or mode 000: removeTree clears it all the same.
  for (const dir of [bench.home, bench.tmp, bench.resultsDir]) {
    await removeTree(dir);
    await mkdir(dir, { recursive: true });
  }
  return given;
}

/**
 * The held-out value run (evidence/held-out-values.ts) in a fresh copy of `tree`: its runner's
 * directory and the Python sentinel's, both outside the workspace, are read-only in the sandbox.
 * A tree of the change that cannot be checked out leaves every call missing.
 */
export async function runValuesOnTree(
  bench: TestBench,
  tree: string,
  spec: HeldOutValuesSpec,
  changeFiles: readonly string[],
  lastUse = false,
): Promise<HeldOutValuesEvidence> {
  let given: GivenTree;
  try {
    given = await freshCopy(bench, tree, lastUse);
  } catch (error) {
    if (!bench.changeCaused?.(error)) throw error;
    const detail = `the agent's change could not be checked out: ${error instanceof Error ? error.message : String(error)}`;
    const results = spec.calls.map((c) => ({ call: c.call, outcome: 'missing' as const, detail }));
    return { runtime: spec.runtime, exitCode: null, timedOut: false, durationMs: 0, results, forged: [], outputTail: '' };
  }
  const [valuesDir, sentinelDir] = [await makeSentinelDir(), await makeSentinelDir()];
  const base = bench.layout;
  const layout: SandboxLayout = {
    ...base,
    readOnly: [...base.readOnly, valuesDir, sentinelDir],
    home: bench.home,
    tmp: bench.tmp,
    limits: execLimits(bench.limits),
    ...(given.overlay ? { overlay: given.overlay } : {}),
  };
  const executor = (bench.executorFactory ?? createExecutor)(bench.sandbox, layout);
  const workdir = layout.environment?.workdir;
  try {
    return await runHeldOutValues({
      executor,
      workspace: bench.workspace,
      spec,
      dir: valuesDir,
      resultsDir: bench.resultsDir,
      timeoutMs: bench.limits.testTimeoutMs,
      ...(bench.signal ? { signal: bench.signal } : {}),
      sentinel: { dir: sentinelDir, changeFiles, roots: workdir !== undefined ? [bench.workspace, workdir] : [bench.workspace] },
    });
  } finally {
    await executor.close();
    await removeTree(bench.resultsDir);
    await Promise.all([removeSentinelDir(valuesDir), removeSentinelDir(sentinelDir), releaseTree(bench, given)]);
  }
}

/** `written`: the host directory where the run's writes to the workspace land (the workspace, or an overlay's upper directory). */
async function runInSandbox(bench: TestBench, spec: TestRunSpec, layout: SandboxLayout, sentinelDir: string, written: string): Promise<TestRun> {
  const { workspace, resultsDir, home } = bench;
  const executor = (bench.executorFactory ?? createExecutor)(bench.sandbox, layout);
  const timeoutMs = bench.limits.testTimeoutMs;
  const signal = bench.signal ? { signal: bench.signal } : {};
  const workdir = layout.environment?.workdir;
  const sentinel = { dir: sentinelDir, changeFiles: spec.changeFiles ?? [], roots: workdir !== undefined ? [workspace, workdir] : [workspace] };
  if (spec.reward) {
    const run = await runRewardVerifier({
      executor,
      workspace,
      command: spec.command,
      resultsDir,
      timeoutMs,
      ...(spec.reward.network !== undefined ? { network: spec.reward.network } : {}),
      ...(spec.reward.exec !== undefined ? { exec: spec.reward.exec } : {}),
      ...(spec.reward.env !== undefined ? { env: spec.reward.env } : {}),
      ...signal,
      sentinel,
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
    timeoutMs,
    ...signal,
    sentinel,
    ...(written !== workspace ? { written } : {}),
    // The code under test runs on the host's disk as the agent did: held to the same workspace limits.
    watch: {
      trees: [
        { root: written, label: 'the workspace under test' },
        { root: home, label: 'HOME under test' },
      ],
      limits: { maxFiles: bench.limits.resources.workspaceFiles, maxBytes: bench.limits.resources.workspaceBytes },
    },
  }).finally(() => executor.close());
  // The report is read: the directory it was written to goes, so no later phase finds it.
  await removeTree(resultsDir);
  // Only JUnit is kept as a file; a stream format's cases are the evidence, and its text is in the output tail.
  if (junitXml !== undefined) await writeFile(join(bench.reportDir, spec.reportName), junitXml);
  return { evidence, ...(cases ? { cases } : {}) };
}

/**
 * Runs held-out tests once on the baseline: the cases they report there are the ones that must
 * still be reported after the change. Code under test that ends the run early, or drops cases from
 * the report, cannot then pass on the cases that remain.
 */
export async function runBaselineHeldOut(bench: TestBench, spec: HeldOutSpec, reportName: string): Promise<TestRun> {
  const tree = await overlayDirectory(bench.baseline, bench.baseline.tree, spec.path);
  return runTestsOnTree(bench, tree, heldOutRun(spec, reportName));
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
