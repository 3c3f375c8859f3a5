/**
 * `crucible ci`'s evaluation: the change base → head of a checkout, graded like an attempt. Base
 * is exported into a scratch directory (and set up), committed as the baseline; the change is laid
 * over it as a tree and verified by src/domain/evaluation's evaluateChange, as an attempt's change is (the
 * test guard, the diff, the secrets scan, the test runs at base and at head, each in a fresh copy,
 * the checks); the verdict's input is src/domain/grading's verifiedOutcome(), as an attempt's, and the
 * verdict its judge(): a test command that gives no report at head or at base is ERROR, not FAIL.
 * The checkout is read through git and never written.
 */
import { mkdir, mkdtemp, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { CheckInput } from '../../domain/checks/index.js';
import { evaluateChange, runTestsOnTree, testsRun, type TestBench } from '../../domain/evaluation/index.js';
import type { CommandEvent, FsGuardEvidence, TestGuardEvidence } from '../../domain/evidence/index.js';
import { judge, verifiedOutcome, type Grade } from '../../domain/grading/index.js';
import { sandboxTraits, type ExecutorFactory, type SandboxKind } from '../../infra/sandbox/index.js';
import type { CheckResult, DiffStats, TestRunEvidence } from '../../core/types/index.js';
import { commitBaseline, removeTree } from '../../infra/workspace/index.js';
import type { Checkout } from './checkout.js';
import type { CiSettings } from './config.js';
import { runSetup, type CiWork } from './setup.js';
import { changeOverBaseline, commitTree, exportCommit, openSource, workingTree } from './trees.js';

export interface CiInput {
  checkout: Checkout;
  base: { ref: string; commit: string };
  /** Undefined: the working tree (tracked changes and untracked files git does not ignore). */
  head?: { ref: string; commit: string };
  settings: CiSettings;
  sandbox: SandboxKind;
  /** Makes the executors of setup and the test runs; default createExecutor. */
  executorFactory?: ExecutorFactory;
  /** Crucible's state directory: hidden from tests, left out of the working tree. */
  stateDir: string;
  /** This evaluation's report directory: diff.patch and the JUnit reports go there. */
  reportDir: string;
  /** A command log (commands.jsonl) for unsafe_commands; empty when none was given. */
  commands: CommandEvent[];
  /** Run the tests at base too, so only tests that passed there count as regressions. */
  baselineTests: boolean;
  /** Writes outside the checkout a watcher saw; `crucible diagnostics mutations` passes synthetic ones. */
  outsideWrites?: FsGuardEvidence;
  /** Kills the running command (setup, a test run) and starts no further one. */
  signal?: AbortSignal;
}

export interface CiEvaluation {
  grade: Grade;
  checks: CheckResult[];
  diff: DiffStats;
  tests: TestRunEvidence;
  baselineTests?: TestRunEvidence;
  tampering: TestGuardEvidence;
  /** What the checks judged: diagnostics re-run the checks on it with one check removed. */
  checkInput: CheckInput;
}

export const CI_REPORT_FILES = { patch: 'diff.patch', junit: 'junit.xml', baselineJunit: 'junit.base.xml' } as const;

export async function evaluateCheckout(input: CiInput): Promise<CiEvaluation> {
  const dir = await mkdtemp(join(tmpdir(), 'crucible-ci-'));
  try {
    return await evaluateIn(dir, input);
  } finally {
    // What the change's tests left there may be deeper than PATH_MAX or locked: removeTree clears it all the same.
    await removeTree(dir);
  }
}

async function evaluateIn(dir: string, input: CiInput): Promise<CiEvaluation> {
  const { checkout, settings } = input;
  const work: CiWork = {
    dir,
    workspace: join(dir, 'workspace'),
    pristine: join(dir, 'pristine'),
    sandbox: input.sandbox,
    ...(input.executorFactory ? { executorFactory: input.executorFactory } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
    // Tests see their copy, never the checkout; unless the scratch directory lies inside it.
    hidden: [resolve(input.stateDir), ...(isInside(dir, checkout.root) ? [] : [checkout.root])],
  };
  await mkdir(input.reportDir, { recursive: true });
  const source = await openSource(checkout, join(dir, 'source.git'), [input.base.commit, ...(input.head ? [input.head.commit] : [])]);
  await exportCommit(source, input.base.commit, work.workspace);
  await runSetup(work, settings);
  input.signal?.throwIfAborted();
  const baseline = await commitBaseline(work.workspace, join(dir, 'baseline.git'), join(dir, 'store.git'));
  await rename(work.workspace, work.pristine);

  const baseTree = await commitTree(source, input.base.commit);
  const headTree = input.head ? await commitTree(source, input.head.commit) : await workingTree(source, checkout, input.base.commit, [input.stateDir]);
  const changed = await changeOverBaseline(source, baseline, baseTree, headTree);
  const resultsDir = join(dir, 'results');
  const bench: TestBench = {
    baseline,
    pristine: work.pristine,
    workspace: work.workspace,
    home: join(dir, 'home'),
    tmp: join(dir, 'tmp'),
    resultsDir,
    reportDir: input.reportDir,
    // Kept: the baseline's tests may have to run after the change's (below).
    pristineShared: true,
    limits: settings.limits,
    layout: { writable: [work.workspace, resultsDir], hidden: work.hidden, readOnly: [] },
    sandbox: work.sandbox,
    ...(work.executorFactory ? { executorFactory: work.executorFactory } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  };
  let atBase = input.baselineTests ? await runTestsOnTree(bench, baseline.tree, testsRun(settings.tests, CI_REPORT_FILES.baselineJunit)) : undefined;
  input.signal?.throwIfAborted();
  const evaluated = await evaluateChange({
    spec: { id: 'ci', tests: settings.tests, policy: settings.policy },
    bench,
    change: changed,
    files: { patch: CI_REPORT_FILES.patch, tests: CI_REPORT_FILES.junit },
    commands: input.commands,
    writeRoots: { workspace: checkout.root, protected: [resolve(input.stateDir), checkout.gitDir] },
    sandboxEnforcesFs: sandboxTraits(input.sandbox).filesystem,
    ...(input.outsideWrites ? { outsideWrites: input.outsideWrites } : {}),
    ...(atBase ? { baselineRun: atBase } : {}),
  });
  const { checks, tests: atHead } = evaluated;
  // No report at head: only the base's run tells a change that broke the test command from a
  // command that never reports (the harness's or the config's fault), as for an attempt.
  if (atHead.evidence.invalidReason !== undefined && atBase === undefined) {
    input.signal?.throwIfAborted();
    atBase = await runTestsOnTree(bench, baseline.tree, testsRun(settings.tests, CI_REPORT_FILES.baselineJunit));
  }
  const outcome = verifiedOutcome({
    checks,
    tests: atHead.evidence,
    baselineTests: atBase?.evidence,
    heldOut: undefined,
    commands: input.commands,
    agentResult: undefined,
  });
  return {
    grade: judge(outcome),
    checks,
    diff: evaluated.diff,
    tests: atHead.evidence,
    ...(atBase ? { baselineTests: atBase.evidence } : {}),
    tampering: evaluated.tampering,
    checkInput: evaluated.checkInput,
  };
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith('/'));
}
