/**
 * One test run of `crucible ci`: a fresh copy of the pristine tree with one git tree checked out
 * over it, a fresh HOME, /tmp and results directory, the configured command in the sandbox without
 * network, its JUnit report turned into evidence. Attempts do exactly this (engine/attempt-verify.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runTests, setupFailure, type SetupFailure } from '../evidence/index.js';
import { createExecutor, type SandboxKind, type SandboxLayout } from '../sandbox/index.js';
import type { ExecLimits } from '../sandbox/index.js';
import type { Limits, TestCaseResult, TestRunEvidence } from '../types/index.js';
import { materializeTree, removeTree, type Baseline } from '../workspace/index.js';
import type { CiSettings } from './config.js';

export interface CiWork {
  /** The scratch directory everything of this evaluation lives in. */
  dir: string;
  /** Where each copy is built; one path for all runs. */
  workspace: string;
  pristine: string;
  sandbox: SandboxKind;
  /** Shown to nothing the tests run: the checkout itself and Crucible's state directory. */
  hidden: string[];
}

export interface CiTestRun {
  evidence: TestRunEvidence;
  cases?: TestCaseResult[];
}

export function execLimits(limits: Limits): ExecLimits {
  const r = limits.resources;
  return { pids: r.pids, memoryBytes: r.memoryBytes, fileSizeBytes: r.fileSizeBytes, ...(r.cpuSeconds !== undefined ? { cpuSeconds: r.cpuSeconds } : {}) };
}

export function layoutFor(work: CiWork, limits: Limits, alsoWritable: string[] = []): SandboxLayout {
  return {
    writable: [work.workspace, ...alsoWritable],
    hidden: work.hidden,
    readOnly: [],
    home: join(work.dir, 'home'),
    tmp: join(work.dir, 'tmp'),
    limits: execLimits(limits),
  };
}

/** Runs the tests on `tree`; `lastUse` moves the pristine tree into place instead of copying it. */
export async function runTestsOnTree(
  work: CiWork,
  baseline: Baseline,
  settings: CiSettings,
  tree: string,
  report: { dir: string; name: string },
  lastUse: boolean,
): Promise<CiTestRun> {
  await materializeTree({ pristine: work.pristine, dest: work.workspace, baseline, tree, consume: lastUse });
  const resultsDir = join(work.dir, 'results');
  for (const dir of [join(work.dir, 'home'), join(work.dir, 'tmp'), resultsDir]) {
    // The tests of the change may have left a tree fs.rm cannot remove (deeper than PATH_MAX, mode 000).
    await removeTree(dir);
    await mkdir(dir, { recursive: true });
  }
  const executor = createExecutor(work.sandbox, layoutFor(work, settings.limits, [resultsDir]));
  const { evidence, junitXml, cases } = await runTests({
    executor,
    workspace: work.workspace,
    command: settings.tests.command,
    junit: settings.tests.junit,
    resultsDir,
    failToPass: settings.tests.failToPass,
    passToPass: settings.tests.passToPass,
    timeoutMs: settings.limits.testTimeoutMs,
    // The change's code runs on the host's disk: held to the workspace limits, as an attempt's tests are.
    watch: {
      trees: [
        { root: work.workspace, label: 'the workspace under test' },
        { root: join(work.dir, 'home'), label: 'HOME under test' },
      ],
      limits: { maxFiles: settings.limits.resources.workspaceFiles, maxBytes: settings.limits.resources.workspaceBytes },
    },
  }).finally(() => executor.close());
  await removeTree(resultsDir);
  if (junitXml !== undefined) await writeFile(join(report.dir, report.name), junitXml);
  return { evidence, ...(cases ? { cases } : {}) };
}

/** The config's setup commands, in the copy of base before it is committed (network allowed, like a task's setup). */
export async function runSetup(work: CiWork, settings: CiSettings): Promise<void> {
  if (settings.setup.length === 0) return;
  for (const dir of [join(work.dir, 'home'), join(work.dir, 'tmp')]) await mkdir(dir, { recursive: true });
  const executor = createExecutor(work.sandbox, layoutFor(work, settings.limits));
  try {
    for (const command of settings.setup) {
      const result = await executor.exec({
        argv: ['sh', '-c', command],
        cwd: work.workspace,
        env: { CI: 'true' },
        timeoutMs: settings.limits.setupTimeoutMs,
        network: 'host',
      });
      if (result.exitCode !== 0) throw new CiSetupError(setupFailure(command, result, settings.limits.setupTimeoutMs));
    }
  } finally {
    await executor.close();
  }
}

/**
 * The config's setup failed: the evaluation cannot start (exit 2 with the command and the line that
 * says why); `failure.excerpt` is the output that shows the reason, for the report directory.
 */
export class CiSetupError extends Error {
  override readonly name = 'CiSetupError';
  constructor(readonly failure: SetupFailure) {
    super(failure.message);
  }
}
