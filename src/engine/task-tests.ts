/**
 * `crucible tests`: one task's test command run once, the way an attempt runs it, to show a task
 * author every test id with its outcome, in the exact form `fail_to_pass` / `pass_to_pass` match.
 *
 * The same code as an attempt: the task's bench (repo, setup, baseline commit), then the tests
 * in a fresh copy of the post-setup tree (src/domain/evaluation's one test run), in the sandbox, without
 * network — at the baseline, or on the oracle's change captured and guarded as verification guards
 * an agent's (`guardChange`: setup outputs dropped, test files taken from the baseline). Everything happens in a scratch directory under the state directory,
 * removed at the end whatever happens.
 */
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import { captureChange } from '../domain/evidence/index.js';
import type { SandboxKind } from '../infra/sandbox/index.js';
import { formatDefect, oracleDefect, taskWhere, type TaskWhere } from '../domain/tasks/index.js';
import type { Task, TestCaseResult, TestRunEvidence } from '../core/types/index.js';
import { git, GitError, removeTree } from '../infra/workspace/index.js';
import { attemptPaths } from './attempt-env.js';
import { createExecutor, type ExecutorFactory } from '../infra/sandbox/index.js';
import type { Bench } from './bench.js';
import { openTaskBench, type TaskBenchEnv } from './task-bench.js';
import { sandboxLayout } from './sandbox-layout.js';
import { checkEnvironmentSandbox, resolveRunEnvironments } from './environments.js';
import { checkRepoPlacement } from './repo-placement.js';
import { execLimits, guardChange } from '../domain/evaluation/index.js';
import { ORACLE_SCRIPT_ENV, oracleScriptArgv } from '../domain/agents/index.js';
import { ATTEMPT_JUNIT_FILES } from '../domain/run-dir/index.js';

export type TestSide = 'baseline' | 'oracle';

/** One id's outcome over its cases: any assertion failure, else any error, else all skipped, else passed. */
export type TestIdOutcome = 'passed' | 'failed' | 'error' | 'skipped';

export interface ListedTest {
  id: string;
  outcome: TestIdOutcome;
  /** How many `<testcase>` elements have this id; more than one is a duplicate id. */
  cases: number;
}

export interface TaskTestSide {
  at: TestSide;
  /** The run as grading sees it (exit code, parsed count, `invalidReason` when it proves nothing, output tail). */
  evidence: TestRunEvidence;
  /** Every distinct id, in report order. */
  tests: ListedTest[];
  /** The first line of each failing id's first failure message (an assertion's), for instruction drafts. */
  messages: Record<string, string>;
}

export interface TaskTestsOptions {
  /** Crucible's state directory: caches, and the scratch directory (`<stateDir>/tests/…`). */
  stateDir: string;
  sandbox: SandboxKind;
  /** Makes setup's, the oracle script's and the test runs' executors; default createExecutor. */
  executorFactory?: ExecutorFactory;
  /** Which runs (the baseline's always first); `oracle` needs the task's oracle patch. */
  sides: readonly TestSide[];
  /** How the task's fields are named in messages (default: by id). */
  where?: TaskWhere;
  signal?: AbortSignal;
  /** One line per step, for a progress display. */
  onProgress?: (step: string) => void;
}

/** Runs the task's tests once per side; throws an InputError for what the task author must fix. */
export async function runTaskTests(task: Task, options: TaskTestsOptions): Promise<TaskTestSide[]> {
  const where = options.where ?? taskWhere(task);
  if (options.sides.includes('oracle') && !task.oracle) {
    throw new InputError(
      `${where.file}: ${where.prefix}: task ${task.id} has no oracle to run the tests with (fix: add oracle.patch or oracle.script, or run at the baseline)`,
    );
  }
  // A task with an environment runs in its image, as in a run: docker only, resolved (built) first.
  await checkEnvironmentSandbox([task], options.sandbox, () => where);
  checkRepoPlacement([task], options.stateDir, () => where);
  const resolved = await resolveRunEnvironments([task], options.sandbox, () => where, options.onProgress ?? ((): void => undefined));
  const defect = resolved.defects.get(task.id)?.[0];
  if (defect) throw new InputError(`${defect.file}: ${defect.field}: ${defect.problem} (fix: ${defect.fix})`);
  const environments = resolved.resolved.size > 0 ? { environments: resolved.resolved } : {};
  // Absolute once: git runs with the workspace as its cwd, where a relative state dir names nothing.
  const stateDir = resolve(options.stateDir);
  const scratchRoot = join(stateDir, 'tests');
  await mkdir(scratchRoot, { recursive: true });
  const paths = attemptPaths(await mkdtemp(join(scratchRoot, 'run-')));
  const env = {
    stateDir,
    sandbox: options.sandbox,
    ...(options.executorFactory ? { executorFactory: options.executorFactory } : {}),
    ...environments,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const say = options.onProgress ?? ((): void => undefined);
  try {
    const setup = task.setup.length > 0 ? `, ${task.setup.length} setup command${task.setup.length === 1 ? '' : 's'}` : '';
    say(`preparing ${task.id}: copying the repo${setup}, committing the baseline`);
    const bench = await openTaskBench(task, paths, env).catch((error: unknown) => {
      if (options.signal?.aborted) throw error;
      throw new InputError(`${where.file}: ${where.prefix}: task ${task.id} could not be prepared: ${messageOf(error)}`);
    });
    const sides: TaskTestSide[] = [];
    // The baseline first: the oracle's patch is applied to the prepared workspace itself.
    for (const at of (['baseline', 'oracle'] as const).filter((side) => options.sides.includes(side))) {
      let tree = bench.baseline.tree;
      if (at === 'baseline') say(`running the tests at the baseline: ${task.tests.command}`);
      else {
        say(task.oracle?.script !== undefined ? 'running the oracle script' : 'applying the oracle patch');
        tree = await oracleTree(task, bench, where, env);
        say(`running the tests with the oracle applied: ${task.tests.command}`);
      }
      const run = await bench.runTests(tree, at === 'baseline' ? ATTEMPT_JUNIT_FILES.baseline : ATTEMPT_JUNIT_FILES.tests);
      sides.push({ at, evidence: run.evidence, tests: listTests(run.cases ?? []), messages: failureMessages(run.cases ?? []) });
    }
    return sides;
  } finally {
    await removeTree(paths.attemptDir);
    // The parent goes too when no other `crucible tests` is using it.
    const left = await readdir(scratchRoot).catch(() => undefined);
    if (left !== undefined && left.length === 0) await rm(scratchRoot, { recursive: true, force: true });
  }
}

/**
 * The oracle's change as verification would grade it: applied to the post-setup workspace,
 * captured as a tree, and its protected paths (tests, runner configuration) taken from the baseline.
 */
async function oracleTree(task: Task, bench: Bench, where: TaskWhere, env: TaskBenchEnv): Promise<string> {
  const { baseline } = bench;
  const workspace = bench.paths.workspace;
  if (task.oracle?.script !== undefined) {
    const why = await runOracleScript(task, bench, env, task.oracle.script);
    if (why !== undefined) throw new InputError(formatDefect(oracleDefect(where, why, 'script')));
  } else {
    try {
      await git({ cwd: workspace }, ['apply', '--whitespace=nowarn', '-'], { stdin: task.oracle?.patch ?? '' });
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      throw new InputError(formatDefect(oracleDefect(where, error.stderr.trim().split('\n')[0] || 'git apply failed')));
    }
  }
  const limits = task.limits.resources;
  const capture = await captureChange({ baseline, workTree: workspace, nestedGit: [], maxFiles: limits.changeFiles, maxBytes: limits.changeBytes });
  if (!capture.ok)
    throw new InputError(`${where.file}: ${where.prefix}.oracle: the change is past a limit: ${capture.detail} (fix: raise limits.${capture.exceeded})`);
  return (await guardChange(task, baseline, capture.tree)).graded.tree;
}

/**
 * The oracle script in the sandbox the run would use, in the prepared workspace, as the oracle
 * agent runs it (by its `#!` line, the agent's timeout, no network). Undefined when it exited 0, else why not.
 */
async function runOracleScript(task: Task, { paths, baseline }: Bench, env: TaskBenchEnv, script: string): Promise<string | undefined> {
  const home = join(paths.attemptDir, 'home');
  const tmp = join(paths.attemptDir, 'tmp');
  for (const dir of [home, tmp]) await mkdir(dir, { recursive: true });
  const layout = {
    ...sandboxLayout({
      task,
      stateDir: env.stateDir,
      workspace: paths.workspace,
      attemptDir: paths.attemptDir,
      baselineGitDir: baseline.gitDir,
      ...(env.environments ? { environments: env.environments } : {}),
    }),
    limits: execLimits(task.limits),
  };
  const executor = (env.executorFactory ?? createExecutor)(env.sandbox, layout);
  try {
    const ran = await executor.exec({
      argv: await oracleScriptArgv(script, home),
      cwd: paths.workspace,
      env: { ...ORACLE_SCRIPT_ENV },
      timeoutMs: task.limits.agentTimeoutMs,
      network: 'none',
      ...(env.signal ? { signal: env.signal } : {}),
    });
    if (ran.timedOut) return `timed out after ${task.limits.agentTimeoutMs} ms`;
    if (ran.exitCode === 0) return undefined;
    return `exit ${ran.exitCode ?? ran.signal ?? 'unknown'}${ran.stderr.trim() ? `: ${ran.stderr.trim().split('\n').pop() ?? ''}` : ''}`;
  } finally {
    await executor.close();
  }
}

/** Distinct ids in report order, each with its outcome over all its cases and how many there were. */
export function listTests(cases: readonly TestCaseResult[]): ListedTest[] {
  const byId = new Map<string, TestCaseResult[]>();
  for (const c of cases) {
    const group = byId.get(c.id);
    if (group === undefined) byId.set(c.id, [c]);
    else group.push(c);
  }
  return [...byId].map(([id, group]) => ({ id, outcome: outcomeOf(group), cases: group.length }));
}

/** Longer first lines are cut: a message is a hint for a human, never evidence. */
const MESSAGE_CHARS = 200;

function failureMessages(cases: readonly TestCaseResult[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of cases) {
    if (c.status !== 'failed' || c.message === undefined || c.id in out) continue;
    const line = c.message
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim();
    if (line !== undefined) out[c.id] = line.slice(0, MESSAGE_CHARS);
  }
  return out;
}

function outcomeOf(cases: readonly TestCaseResult[]): TestIdOutcome {
  if (cases.some((c) => c.status === 'failed' && !c.errored)) return 'failed';
  if (cases.some((c) => c.status === 'failed')) return 'error';
  return cases.every((c) => c.status === 'skipped') ? 'skipped' : 'passed';
}

export interface TestIdSuggestion {
  /** Passes with the oracle, and fails, errors, is skipped or is missing at the baseline. */
  failToPass: string[];
  /** Passes on both sides. */
  passToPass: string[];
  /** Ids left out of both lists because more than one case has them: a listed id must be unique to pass. */
  duplicated: string[];
  /** `pass_to_pass: all_others` would select exactly `passToPass` on both sides. */
  allOthersAgrees: boolean;
  /** Read from the baseline alone (the task has no oracle): `failToPass` holds every test not passing there, candidates a fix has yet to prove. */
  baselineOnly?: true;
}

/**
 * The `fail_to_pass` / `pass_to_pass` lists two runs (baseline, oracle) support. Without an oracle
 * run, the baseline's own outcomes: what fails now is a candidate, what passes must keep passing.
 */
export function suggestTestIds(baseline: readonly ListedTest[], oracle?: readonly ListedTest[]): TestIdSuggestion {
  if (oracle === undefined) {
    const unique = baseline.filter((t) => t.cases <= 1);
    const failing = unique.filter((t) => t.outcome === 'failed' || t.outcome === 'error').map((t) => t.id);
    return {
      failToPass: failing,
      passToPass: unique.filter((t) => t.outcome === 'passed').map((t) => t.id),
      duplicated: baseline.filter((t) => t.cases > 1).map((t) => t.id),
      allOthersAgrees: baseline.every((t) => t.cases <= 1 && t.outcome !== 'skipped'),
      baselineOnly: true,
    };
  }
  const before = new Map(baseline.map((t) => [t.id, t]));
  const failToPass: string[] = [];
  const passToPass: string[] = [];
  const duplicated: string[] = [];
  for (const test of oracle) {
    if (test.outcome !== 'passed') continue;
    const then = before.get(test.id);
    if (test.cases > 1 || (then?.cases ?? 1) > 1) duplicated.push(test.id);
    else if (then?.outcome === 'passed') passToPass.push(test.id);
    else failToPass.push(test.id);
  }
  const f2p = new Set(failToPass);
  // What `all_others` selects on a side: every id outside fail-to-pass that is not skipped throughout.
  const allOthers = (side: readonly ListedTest[]): string[] => side.filter((t) => !f2p.has(t.id) && t.outcome !== 'skipped').map((t) => t.id);
  const p2p = new Set(passToPass);
  const same = (ids: string[]): boolean => ids.length === p2p.size && ids.every((id) => p2p.has(id));
  return { failToPass, passToPass, duplicated, allOthersAgrees: duplicated.length === 0 && same(allOthers(baseline)) && same(allOthers(oracle)) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
