/**
 * The attempt's evidence phases around the agent: the baseline test run before it, and after it
 * the verification that the checks judge. attempt.ts orchestrates; this file does the work.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { effectivePolicy, runChecks } from '../checks/index.js';
import { readAddedLines } from '../evidence/added-lines.js';
import type { CommandEvent } from '../evidence/command-log.js';
import { collectDiff } from '../evidence/diff.js';
import { finishFsGuard, type FsGuard } from '../evidence/fs-guard.js';
import { runTests } from '../evidence/run-tests.js';
import { guardEvidence, inspectTests, restoreTests, type TestSnapshot } from '../evidence/test-guard.js';
import { failToPassAlreadyPassing } from '../grading/index.js';
import { createExecutor } from '../sandbox/index.js';
import type { CheckResult, DiffStats, Task, TestCaseResult, TestRunEvidence } from '../types/index.js';
import type { Baseline } from '../workspace/baseline.js';
import { git } from '../workspace/git.js';
import type { AttemptEnv } from './attempt.js';
import { ATTEMPT_JUNIT_FILES } from './run-files.js';
import { sandboxLayout } from './sandbox-layout.js';

const execFileAsync = promisify(execFile);

export interface AttemptPaths {
  attemptDir: string;
  workspace: string;
  /** Outside the workspace, writable only while tests run: where `$CRUCIBLE_JUNIT` points. */
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
  failToPass: string[];
  passToPass: string[] | 'all_others';
  reportName: string;
}

async function runTestCommand(task: Task, paths: AttemptPaths, baseline: Baseline, env: AttemptEnv, spec: TestRunSpec): Promise<TestRun> {
  const layout = sandboxLayout({ task, stateDir: env.stateDir, workspace: paths.workspace, attemptDir: paths.attemptDir, baselineGitDir: baseline.gitDir, alsoWritable: [paths.resultsDir] });
  const { evidence, junitXml, cases } = await runTests({
    executor: createExecutor(env.sandbox, layout),
    workspace: paths.workspace,
    command: spec.command,
    junit: spec.junit,
    resultsDir: paths.resultsDir,
    reportName: spec.reportName,
    failToPass: spec.failToPass,
    passToPass: spec.passToPass,
    timeoutMs: task.limits.testTimeoutMs,
    signal: env.signal,
  });
  if (junitXml === undefined) return { evidence };
  await writeFile(join(paths.attemptDir, spec.reportName), junitXml);
  return { evidence, ...(cases ? { cases } : {}) };
}

/**
 * Runs the task's tests once before the agent, then puts the workspace back exactly as the
 * baseline commit left it: tracked files reset, untracked debris cleaned, generated test files
 * and bytecode removed, the results directory emptied.
 */
export async function runBaselineTests(task: Task, paths: AttemptPaths, baseline: Baseline, snapshot: TestSnapshot, env: AttemptEnv): Promise<TestRun> {
  const run = await runTestCommand(task, paths, baseline, env, { ...task.tests, reportName: ATTEMPT_JUNIT_FILES.baseline });
  const target = { gitDir: baseline.gitDir, workTree: paths.workspace };
  await git(target, ['reset', '--hard', '--quiet', baseline.commit]);
  await git(target, ['clean', '-d', '--force', '--quiet']);
  await restoreTests(snapshot, await inspectTests(snapshot, paths.resultsDir), paths.resultsDir);
  return run;
}

/** Why a task cannot grade anyone, judged on its baseline run; undefined when it can. */
export function taskInvalidReason(task: Task, baselineRun: TestRunEvidence): string | undefined {
  if (baselineRun.invalidReason !== undefined) return undefined;
  const passing = failToPassAlreadyPassing(task.tests.failToPass, baselineRun);
  if (passing.length === 0) return undefined;
  return `task invalid: fail-to-pass test(s) already pass at the baseline, before any agent ran: ${passing.join(', ')} (fix the task's fail_to_pass or its repo)`;
}

export interface VerifyInput {
  task: Task;
  paths: AttemptPaths;
  baseline: Baseline;
  snapshot: TestSnapshot;
  fsGuard: FsGuard;
  env: AttemptEnv;
  commands: CommandEvent[];
  sandboxEnforcesFs: boolean;
  baselineRun?: TestRun;
}

export interface Verified {
  diff: DiffStats;
  tests: TestRunEvidence;
  heldOut?: TestRunEvidence;
  checks: CheckResult[];
}

/**
 * After the agent stopped: what changed (diff, outside writes, test files), test files put back,
 * the tests run, held-out tests copied in and run, added lines read, and every check judged.
 */
export async function verifyAttempt(input: VerifyInput): Promise<Verified> {
  const { task, paths, baseline, snapshot, env } = input;
  const outsideWrites = await finishFsGuard(input.fsGuard);
  const patchFile = join(paths.attemptDir, 'diff.patch');
  const diff = await collectDiff({ gitDir: baseline.gitDir, workspace: paths.workspace, baseline: baseline.commit, patchFile });
  const guardState = await inspectTests(snapshot, paths.resultsDir);
  const tampering = { ...guardEvidence(snapshot, guardState), ...(await restoreTests(snapshot, guardState, paths.resultsDir)) };

  const tests = await runTestCommand(task, paths, baseline, env, { ...task.tests, reportName: ATTEMPT_JUNIT_FILES.tests });
  let heldOut: TestRun | undefined;
  if (task.heldOut) {
    // Copied in only now: the agent has stopped, and never had the held-out directory in view.
    await execFileAsync('cp', ['-R', '--', `${task.heldOut.path}/.`, paths.workspace]);
    heldOut = await runTestCommand(task, paths, baseline, env, {
      command: task.heldOut.command,
      junit: task.heldOut.junit,
      failToPass: [],
      passToPass: 'all_others',
      reportName: ATTEMPT_JUNIT_FILES.heldOut,
    });
  }
  const addedLines = await readAddedLines(patchFile, diff, paths.workspace);
  const checks = runChecks({
    task,
    policy: effectivePolicy(task),
    diff,
    tests: tests.evidence,
    cases: tests.cases,
    baselineTests: input.baselineRun?.evidence,
    baselineCases: input.baselineRun?.cases,
    heldOut: heldOut?.evidence,
    tampering,
    commands: input.commands,
    reportDir: paths.resultsDir,
    writeRoots: {
      workspace: paths.workspace,
      home: join(paths.attemptDir, 'home'),
      tmp: join(paths.attemptDir, 'tmp'),
      protected: [resolve(env.stateDir), paths.attemptDir, dirname(task.sourceFile), ...(task.repo.kind === 'local' ? [task.repo.path] : [])],
    },
    outsideWrites,
    sandboxEnforcesFs: input.sandboxEnforcesFs,
    addedLines,
  });
  return { diff, tests: tests.evidence, heldOut: heldOut?.evidence, checks };
}

/**
 * A test command that produced no usable report after the agent and none at the baseline either
 * is the task's or the harness's problem, not the agent's.
 */
export function neverRanReason(tests: TestRunEvidence, baselineRun: TestRunEvidence | undefined): string | undefined {
  if (tests.invalidReason === undefined || baselineRun?.invalidReason === undefined) return undefined;
  return `the test command gave no usable report at the baseline either (${baselineRun.invalidReason}); check tests.command`;
}
