/**
 * `crucible ci`'s evaluation: the change base → head of a checkout, graded like an attempt. Base
 * is exported into a scratch directory (and set up), committed as the baseline; the change is laid
 * over it as a tree; the test guard, the diff, the secrets scan, the test runs (at base and at
 * head, each in a fresh copy) and the checks registry are the attempts' own; the verdict is
 * src/grading's. The checkout is read through git and never written.
 */
import { mkdir, mkdtemp, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { effectivePolicy, runChecks, type CheckInput } from '../checks/index.js';
import {
  MAX_PATCH_BYTES,
  collectDiff,
  protectTests,
  readAddedLines,
  type CommandEvent,
  type FsGuardEvidence,
  type TestGuardEvidence,
} from '../evidence/index.js';
import { judge, type Grade } from '../grading/index.js';
import type { SandboxKind } from '../sandbox/index.js';
import type { CheckResult, DiffStats, TestRunEvidence } from '../types/index.js';
import { commitBaseline, removeTree } from '../workspace/index.js';
import type { Checkout } from './checkout.js';
import type { CiSettings } from './config.js';
import { runSetup, runTestsOnTree, type CiWork } from './test-run.js';
import { changeOverBaseline, commitTree, exportCommit, openSource, workingTree } from './trees.js';

export interface CiInput {
  checkout: Checkout;
  base: { ref: string; commit: string };
  /** Undefined: the working tree (tracked changes and untracked files git does not ignore). */
  head?: { ref: string; commit: string };
  settings: CiSettings;
  sandbox: SandboxKind;
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

export async function evaluateChange(input: CiInput): Promise<CiEvaluation> {
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
    // Tests see their copy, never the checkout; unless the scratch directory lies inside it.
    hidden: [resolve(input.stateDir), ...(isInside(dir, checkout.root) ? [] : [checkout.root])],
  };
  await mkdir(input.reportDir, { recursive: true });
  const source = await openSource(checkout, join(dir, 'source.git'), [input.base.commit, ...(input.head ? [input.head.commit] : [])]);
  await exportCommit(source, input.base.commit, work.workspace);
  await runSetup(work, settings);
  const baseline = await commitBaseline(work.workspace, join(dir, 'baseline.git'), join(dir, 'store.git'));
  await rename(work.workspace, work.pristine);

  const baseTree = await commitTree(source, input.base.commit);
  const headTree = input.head ? await commitTree(source, input.head.commit) : await workingTree(source, checkout, input.base.commit, [input.stateDir]);
  const changed = await changeOverBaseline(source, baseline, baseTree, headTree);
  const task = { id: 'ci', tests: settings.tests, heldOut: undefined };
  const reportPaths = settings.tests.junit === undefined ? [] : [settings.tests.junit];
  const graded = await protectTests({ baseline, tree: changed, testPaths: settings.tests.testPaths, reportPaths });

  const patchFile = join(input.reportDir, CI_REPORT_FILES.patch);
  const diff = await collectDiff({ gitDir: baseline.store, from: baseline.tree, to: changed, patchFile, maxPatchBytes: MAX_PATCH_BYTES + 1 });
  const addedLines = await readAddedLines(patchFile, diff, { gitDir: baseline.store, tree: changed });

  const report = (name: string): { dir: string; name: string } => ({ dir: input.reportDir, name });
  const atBase = input.baselineTests ? await runTestsOnTree(work, baseline, settings, baseline.tree, report(CI_REPORT_FILES.baselineJunit), false) : undefined;
  const atHead = await runTestsOnTree(work, baseline, settings, graded.tree, report(CI_REPORT_FILES.junit), true);

  const checkInput: CheckInput = {
    task,
    policy: effectivePolicy({ policy: settings.policy, tests: settings.tests, heldOut: undefined }),
    diff,
    tests: atHead.evidence,
    cases: atHead.cases,
    baselineTests: atBase?.evidence,
    baselineCases: atBase?.cases,
    tampering: graded.evidence,
    commands: input.commands,
    writeRoots: { workspace: checkout.root, protected: [resolve(input.stateDir), checkout.gitDir] },
    sandboxEnforcesFs: input.sandbox === 'bwrap',
    addedLines,
    ...(input.outsideWrites ? { outsideWrites: input.outsideWrites } : {}),
  };
  const checks = runChecks(checkInput);
  // A limit the change's tests hit explains their failure better than the tests do, as for an attempt.
  const resourceLimit = atHead.evidence.limitExceeded;
  return {
    grade: judge({ kind: 'graded', checks, ...(resourceLimit ? { resourceLimit } : {}) }),
    checks,
    diff,
    tests: atHead.evidence,
    ...(atBase ? { baselineTests: atBase.evidence } : {}),
    tampering: graded.evidence,
    checkInput,
  };
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith('/'));
}
