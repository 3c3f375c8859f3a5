/**
 * `crucible ci`'s evaluation: the change base → head of a checkout, graded like an attempt, on the
 * same bench (src/engine/bench.ts): base is exported into a scratch directory, set up and committed
 * as the baseline; the change is laid over it as a tree and evaluated there (the test guard, the
 * diff, the secrets scan, the test runs at base and at head, each in a fresh copy, the checks). The
 * bench gives the verdict's input, the outcome an attempt's would be ("the tests never ran"
 * included), and judge() makes the verdict: a test command that gives no report at head or at base
 * is ERROR, not FAIL. The checkout is read through git and never written.
 */
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { CheckInput } from '../../domain/checks/index.js';
import type { CommandEvent, FsGuardEvidence, TestGuardEvidence } from '../../domain/evidence/index.js';
import { judge, type Grade } from '../../domain/grading/index.js';
import { sandboxTraits, type ExecutorFactory, type SandboxKind } from '../../infra/sandbox/index.js';
import type { CheckResult, DiffStats, TestRunEvidence } from '../../core/types/index.js';
import { removeTree } from '../../infra/workspace/index.js';
import { benchPaths, openBench, type Bench } from '../../engine/index.js';
import type { Checkout } from './checkout.js';
import type { CiSettings } from './config.js';
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
  const { checkout } = input;
  await mkdir(input.reportDir, { recursive: true });
  const source = await openSource(checkout, join(dir, 'source.git'), [input.base.commit, ...(input.head ? [input.head.commit] : [])]);
  const bench = await openCiBench(dir, input, (workspace) => exportCommit(source, input.base.commit, workspace));
  input.signal?.throwIfAborted();
  const baseTree = await commitTree(source, input.base.commit);
  const headTree = input.head ? await commitTree(source, input.head.commit) : await workingTree(source, checkout, input.base.commit, [input.stateDir]);
  const changed = await changeOverBaseline(source, bench.baseline, baseTree, headTree);
  if (input.baselineTests) await bench.baselineRuns();
  input.signal?.throwIfAborted();
  // No report at head and no run at base: the bench runs base then, as only that tells a change
  // that broke the test command from a command that never reports (the harness's or the config's fault).
  const { evidence, baseline, outcome } = await bench.evaluate({
    tree: changed,
    commands: input.commands,
    writeRoots: { workspace: checkout.root, protected: [resolve(input.stateDir), checkout.gitDir] },
    sandboxEnforcesFs: sandboxTraits(input.sandbox).filesystem,
    ...(input.outsideWrites ? { outsideWrites: input.outsideWrites } : {}),
  });
  return {
    grade: judge(outcome),
    checks: evidence.checks,
    diff: evidence.diff,
    tests: evidence.tests.evidence,
    ...(baseline ? { baselineTests: baseline.run.evidence } : {}),
    tampering: evidence.tampering,
    checkInput: evidence.checkInput,
  };
}

/** The config's bench in `dir`: base's files, the config's setup over them, its tests, in a sandbox shown neither the checkout nor the state directory. */
function openCiBench(dir: string, input: CiInput, fill: (workspace: string) => Promise<void>): Promise<Bench> {
  const { settings } = input;
  const paths = benchPaths(join(dir, 'bench'), { agent: false });
  // Tests see their copy, never the checkout; unless the scratch directory lies inside it.
  const hidden = [resolve(input.stateDir), ...(isInside(dir, input.checkout.root) ? [] : [input.checkout.root])];
  const names = { baseline: CI_REPORT_FILES.baselineJunit, tests: CI_REPORT_FILES.junit, patch: CI_REPORT_FILES.patch };
  return openBench(
    { id: 'ci', tests: settings.tests, policy: settings.policy, setup: settings.setup, limits: settings.limits },
    { kind: 'files', fill },
    {
      kind: input.sandbox,
      ...(input.executorFactory ? { executorFactory: input.executorFactory } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
      layout: ({ alsoWritable }) => ({
        writable: [paths.workspace, ...alsoWritable],
        hidden,
        readOnly: [],
        home: join(paths.attemptDir, 'home'),
        tmp: join(paths.attemptDir, 'tmp'),
      }),
    },
    // A ci config has no held-out tests: their names are never written.
    { paths, reports: { dir: input.reportDir, names: { ...names, baselineHeldOut: 'junit.base.held-out.xml', heldOut: 'junit.held-out.xml' } } },
  );
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith('/'));
}
