/**
 * evaluateChange(): the one verification of a change, for attempts and `crucible ci` alike. The
 * change (a tree in the baseline's store) loses what setup produced, its protected paths (tests,
 * runner configuration, report paths) are put back from the baseline, its diff is read, its tests
 * run in a fresh copy of that tree and its held-out tests in another, and every check judges the
 * evidence. No verdict is made here: that is src/domain/grading's judge().
 */
import { join } from 'node:path';
import { detectContent, effectivePolicy, runChecks, type CheckInput } from '../checks/index.js';
import type { WriteRoots } from '../checks/index.js';
import {
  MAX_PATCH_BYTES,
  collectDiff,
  notGraded,
  protectTests,
  readAddedLines,
  type CommandEvent,
  type FsGuardEvidence,
  type IgnoredManifest,
  type TestGuardEvidence,
} from '../evidence/index.js';
import type { CheckResult, DiffStats, NotGraded, Task } from '../../core/types/index.js';
import { overlayDirectory, withoutSetupOutputs, type Baseline } from '../../infra/workspace/index.js';
import { changeBlobs, type ChangeBlobs } from './blobs.js';
import { heldOutRun, runTestsOnTree, runValuesOnTree, testsRun, type TestBench, type TestRun } from './test-run.js';

/** What is evaluated against: a task's tests, held-out tests and policy (a ci config is a task without held-out tests). */
export type EvaluationSpec = Pick<Task, 'id' | 'tests' | 'heldOut' | 'heldOutValues' | 'policy'>;

export interface ChangeInput {
  spec: EvaluationSpec;
  bench: TestBench;
  /** The captured change: a tree in the baseline's store. */
  change: string;
  /** File names in the bench's report directory: the diff, the tests' and the held-out tests' JUnit reports (default held-out.xml). */
  files: { patch: string; tests: string; heldOut?: string };
  /** Every command the change's author ran, as recorded by the harness (or a command log). */
  commands: CommandEvent[];
  /** Where those commands may write, as the unsafe-command rules read it. */
  writeRoots: WriteRoots;
  sandboxEnforcesFs: boolean;
  outsideWrites?: FsGuardEvidence;
  /** The tests' and the held-out tests' runs at the baseline (the held-out count rule needs the latter). */
  baselineRun?: TestRun;
  baselineHeldOut?: TestRun;
  /**
   * Ignored files before and after the change, to tell which ones it touched (attempts). `after`
   * is read once the change is guarded: git reads the agent's own ignore files then.
   */
  ignored?: { before: IgnoredManifest; after: () => Promise<IgnoredManifest> };
}

export interface ChangeEvidence {
  diff: DiffStats;
  tampering: TestGuardEvidence;
  tests: TestRun;
  heldOut?: TestRun;
  /** What the grade leaves out: ignored files the change touched (with `ignored`), dependencies, new tests. */
  notGraded: NotGraded;
  /** What the checks judged: a trace records it, diagnostics re-run the checks on it. */
  checkInput: CheckInput;
  checks: CheckResult[];
  /** Git blob ids before and after, per changed path (for a trace). */
  blobs: ChangeBlobs;
}

/** Verifies one change and runs every check on the evidence; the last test run consumes the bench's pristine tree. */
export async function evaluateChange(input: ChangeInput): Promise<ChangeEvidence> {
  const { spec, bench } = input;
  const { baseline } = bench;
  const { captured, graded } = await guardChange(spec, baseline, input.change);

  const patchFile = join(bench.reportDir, input.files.patch);
  // One byte over the scan limit: a patch cut there is one the secrets scan knows is incomplete.
  const diff = await collectDiff({ gitDir: baseline.store, from: baseline.tree, to: captured, patchFile, maxPatchBytes: MAX_PATCH_BYTES + 1 });
  const newTests = graded.evidence.findings.filter((f) => f.kind === 'added').map((f) => f.path);
  const ignoredNow = input.ignored ? await input.ignored.after() : new Map<string, string>();
  const skipped = notGraded(input.ignored?.before ?? new Map<string, string>(), ignoredNow, { dependencies: graded.dependencies, newTests });

  // What the change left in the tree under test: the Python sentinel attributes events to it.
  const changeFiles = diff.files.filter((f) => f.kind !== 'deleted').map((f) => f.path);
  const tests = await runTestsOnTree(
    bench,
    graded.tree,
    { ...testsRun(spec.tests, input.files.tests), changeTree: true, changeFiles },
    !spec.heldOut && !spec.heldOutValues,
  );
  let heldOut: TestRun | undefined;
  if (spec.heldOut) {
    // Laid over the change's tree only now: its author never had the held-out files in view, and
    // whatever the change put at their paths (a file, a symlink, a directory) gives way to them.
    const tree = await overlayDirectory(baseline, graded.tree, spec.heldOut.path);
    const required = requiredHeldOut(input.baselineHeldOut);
    const run = await runTestsOnTree(
      bench,
      tree,
      { ...heldOutRun(spec.heldOut, input.files.heldOut ?? 'held-out.xml', required), changeTree: true, changeFiles },
      !spec.heldOutValues,
    );
    heldOut = checkHeldOutCount(run, input.baselineHeldOut);
  }
  // On the change's own tree, without the held-out files: the calls name code under test.
  const heldOutValues = spec.heldOutValues ? await runValuesOnTree(bench, graded.tree, spec.heldOutValues, changeFiles, true) : undefined;
  const addedLines = await readAddedLines(patchFile, diff, { gitDir: baseline.store, tree: captured });
  const policy = effectivePolicy(spec);
  const checkInput: CheckInput = {
    task: spec,
    policy,
    diff,
    tests: tests.evidence,
    cases: tests.cases,
    baselineTests: input.baselineRun?.evidence,
    baselineCases: input.baselineRun?.cases,
    heldOut: heldOut?.evidence,
    ...(heldOutValues ? { heldOutValues } : {}),
    tampering: graded.evidence,
    commands: input.commands,
    reportDir: bench.resultsDir,
    writeRoots: input.writeRoots,
    ...(input.outsideWrites ? { outsideWrites: input.outsideWrites } : {}),
    sandboxEnforcesFs: input.sandboxEnforcesFs,
    // Detection reads the lines once; the checks judge its findings, as a trace replay does.
    content: detectContent(addedLines, policy.secrets.literals),
  };
  const checks = runChecks(checkInput);
  const blobs = await changeBlobs(baseline.store, baseline.tree, captured);
  return {
    diff,
    tampering: graded.evidence,
    tests,
    ...(heldOut ? { heldOut } : {}),
    notGraded: skipped,
    checkInput,
    checks,
    blobs,
  };
}

/**
 * The change as it is verified: without what setup produced (the environment, never part of a
 * change) and with its protected paths (tests, runner configuration, report paths) taken from the
 * baseline. `captured` is the first of those trees (what the diff shows), `graded.tree` the second.
 */
export async function guardChange(
  spec: Pick<EvaluationSpec, 'tests' | 'heldOut'>,
  baseline: Baseline,
  change: string,
): Promise<{ captured: string; graded: Awaited<ReturnType<typeof protectTests>> }> {
  const reportPaths = [spec.tests.junit, spec.heldOut?.junit].filter((p): p is string => p !== undefined);
  const captured = await withoutSetupOutputs(baseline, change);
  const graded = await protectTests({ baseline, tree: captured, testPaths: spec.tests.testPaths, reportPaths });
  return { captured, graded };
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
