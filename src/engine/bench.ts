/**
 * The bench: what surrounds grading, written once for attempts, `crucible ci`, `crucible tests`
 * and the preflight. openBench() prepares the tree (the source, setup, the baseline commit:
 * bench-prepare.ts) and gives the test runs over it: the baseline's (taken once, or adopted from
 * the preflight), any tree's, and a change's evaluation with the verdict's input. Every run
 * happens in a fresh copy at the workspace path (src/domain/evaluation); verdicts are judge()'s.
 */
import { rename, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { WriteRoots } from '../domain/checks/index.js';
import type { CommandEvent, FsGuardEvidence, IgnoredManifest } from '../domain/evidence/index.js';
import {
  evaluateChange,
  runBaselineHeldOut,
  runTestsOnTree,
  testsRun,
  type ChangeEvidence,
  type EvaluationSpec,
  type TestBench,
  type TestRun,
} from '../domain/evaluation/index.js';
import { verifiedOutcome } from '../domain/grading/index.js';
import type { AgentResult, Limits } from '../core/types/index.js';
import { besideWorkspace, type BenchPaths } from './bench-paths.js';
import { prepareTree, type BaselineRuns, type BenchSandbox, type BenchSource, type Prepared } from './bench-prepare.js';

export { benchPaths, besideWorkspace, type BenchPaths } from './bench-paths.js';
export {
  SetupCommandError,
  type BaselineRuns,
  type BenchSandbox,
  type BenchSource,
  type PreparedNotice,
  type PrepareTimings,
  type Prepared,
} from './bench-prepare.js';

/** What a bench is opened for: the tests, held-out tests and policy, the setup commands, the limits (a task, or a ci config). */
export interface BenchSpec extends EvaluationSpec {
  setup: readonly string[];
  limits: Limits;
}

/** Where the bench's evidence files go: the report directory and each file's name in it. */
export interface BenchReports {
  dir: string;
  names: { baseline: string; baselineHeldOut: string; tests: string; heldOut: string; patch: string };
}

/** Where the bench lives: its paths, its reports, and the baseline's runs when they were taken already (the preflight's). */
export interface BenchPlace {
  paths: BenchPaths;
  reports: BenchReports;
  baselineRuns?: BaselineRuns;
}

/** A change to evaluate on the bench, with what its author did. */
export interface BenchChange {
  /** The captured change: a tree in the baseline's store. */
  tree: string;
  /** Every command its author ran, as the harness recorded it (or a command log). */
  commands: CommandEvent[];
  /** Where those commands may write, as the unsafe-command rules read it. */
  writeRoots: WriteRoots;
  sandboxEnforcesFs: boolean;
  outsideWrites?: FsGuardEvidence;
  /** Ignored files once the change is guarded, to tell which ones it touched (against the prepared tree's). */
  ignoredAfter?: () => Promise<IgnoredManifest>;
  /** The agent's own account (its stop, its limit): part of the verdict's input. */
  agentResult?: AgentResult;
}

export interface BenchEvaluation {
  evidence: ChangeEvidence;
  /** The baseline's runs the evaluation was judged against, if any ran. */
  baseline?: BaselineRuns;
  /** The verdict's input: judge() it. */
  outcome: ReturnType<typeof verifiedOutcome>;
}

export interface Bench extends Prepared {
  readonly spec: BenchSpec;
  readonly paths: BenchPaths;
  /** The spec's tests once on `tree` in a fresh copy; the report under `reportName` (default the change's tests' name). */
  runTests(tree: string, reportName?: string): Promise<TestRun>;
  /**
   * The baseline's runs: taken once (the held-out tests only when `accept` takes the tests' run),
   * or the ones the bench was opened with. Later calls return the same.
   */
  baselineRuns(accept?: (run: TestRun) => boolean | Promise<boolean>): Promise<BaselineRuns>;
  /** The baseline's runs if they were taken (or adopted). */
  readonly knownBaseline: BaselineRuns | undefined;
  /**
   * Verifies a change and runs the checks (evaluateChange). A run without a report on the change
   * with no baseline taken runs the baseline then, while its pristine tree is still there: only that
   * tells a change that broke the test command from one that never reports.
   */
  evaluate(change: BenchChange): Promise<BenchEvaluation>;
  /** The prepared tree (the agent's, once it stopped) leaves the workspace path for good: moved aside, or made empty if it is gone. */
  setAside(): Promise<void>;
}

/** Prepares the tree (source, setup, baseline commit) and opens the bench over it; throws SetupCommandError when setup fails. */
export async function openBench(spec: BenchSpec, source: BenchSource, sandbox: BenchSandbox, at: BenchPlace): Promise<Bench> {
  const { paths, reports } = at;
  const prepared = await prepareTree(spec, source, sandbox, paths);
  const { baseline } = prepared;
  const tests: TestBench = {
    baseline,
    pristine: paths.pristine,
    ...(paths.pristineShared ? { pristineShared: true } : {}),
    workspace: paths.workspace,
    home: join(paths.attemptDir, 'test-home'),
    tmp: join(paths.attemptDir, 'test-tmp'),
    resultsDir: paths.resultsDir,
    reportDir: reports.dir,
    limits: spec.limits,
    layout: sandbox.layout({ baselineGitDir: baseline.gitDir, alsoWritable: [paths.resultsDir] }),
    sandbox: sandbox.kind,
    ...(sandbox.executorFactory ? { executorFactory: sandbox.executorFactory } : {}),
    ...(sandbox.signal ? { signal: sandbox.signal } : {}),
    ...(sandbox.changeCaused ? { changeCaused: sandbox.changeCaused } : {}),
  };
  let known = at.baselineRuns;
  let aside = false;
  // Test runs build their copy at the workspace path: the prepared tree waits beside it meanwhile.
  const free = <T>(work: () => Promise<T>): Promise<T> => (aside ? work() : besideWorkspace(paths, work));
  const testsAtBaseline = (): Promise<TestRun> => runTestsOnTree(tests, baseline.tree, testsRun(spec.tests, reports.names.baseline));
  const bench: Bench = {
    ...prepared,
    spec,
    paths,
    get knownBaseline() {
      return known;
    },
    runTests: (tree, reportName = reports.names.tests) => free(() => runTestsOnTree(tests, tree, testsRun(spec.tests, reportName))),
    baselineRuns: async (accept) => {
      known ??= await free(async () => {
        const run = await testsAtBaseline();
        // Always asked, held-out tests or not: the caller reads the task's defects off this run.
        const usable = accept === undefined || (await accept(run));
        if (!spec.heldOut || !usable) return { run };
        return { run, heldOut: await runBaselineHeldOut(tests, spec.heldOut, reports.names.baselineHeldOut) };
      });
      return known;
    },
    evaluate: (change) =>
      free(async () => {
        const evidence = await evaluateChange({
          spec,
          bench: tests,
          change: change.tree,
          files: { patch: reports.names.patch, tests: reports.names.tests, heldOut: reports.names.heldOut },
          commands: change.commands,
          writeRoots: change.writeRoots,
          sandboxEnforcesFs: change.sandboxEnforcesFs,
          ...(change.outsideWrites ? { outsideWrites: change.outsideWrites } : {}),
          ...(known ? { baselineRun: known.run } : {}),
          ...(known?.heldOut ? { baselineHeldOut: known.heldOut } : {}),
          ...(change.ignoredAfter ? { ignored: { before: prepared.ignored, after: change.ignoredAfter } } : {}),
        });
        if (evidence.tests.evidence.invalidReason !== undefined && known === undefined && paths.pristineShared === true) {
          sandbox.signal?.throwIfAborted();
          known = { run: await testsAtBaseline() };
        }
        const outcome = verifiedOutcome({
          checks: evidence.checks,
          tests: evidence.tests.evidence,
          baselineTests: known?.run.evidence,
          heldOut: evidence.heldOut?.evidence,
          commands: change.commands,
          agentResult: change.agentResult,
        });
        return { evidence, ...(known ? { baseline: known } : {}), outcome };
      }),
    setAside: async () => {
      // Without a sandbox an agent can delete the workspace itself; then it left nothing.
      await rename(paths.workspace, paths.agentWorkspace).catch(async (error: unknown) => {
        if ((error as { code?: string }).code !== 'ENOENT') throw error;
        await mkdir(paths.agentWorkspace, { recursive: true });
      });
      aside = true;
    },
  };
  return bench;
}
