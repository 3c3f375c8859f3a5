/**
 * Runs the attacks of one red-team suite (Attack.suite) on bundled example tasks, in a real
 * sandbox (bwrap unless told), through runAttempt after a shared preflight, as `crucible run` does; attacks.test.ts runs
 * the others the same way.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ATTACKS, expectedFor, resolveRunAgent, type Attack } from '../../../src/domain/redteam/index.js';
import { loadTaskSet } from '../../../src/domain/config/index.js';
import { runAttempt } from '../../../src/engine/attempt.js';
import { describeExpectation, meetsAttackExpectation } from '../../../src/domain/grading/validity.js';
import type { AttemptResult, Task } from '../../../src/core/types/index.js';
import type { SandboxKind } from '../../../src/infra/sandbox/index.js';
import { inPool, shareBaselines } from './shared-run.js';

export interface SuiteAttempt {
  attack: Attack;
  taskId: string;
  /** The task as it ran (after `adjust`). */
  task: Task;
  result: AttemptResult;
}

export interface SuiteOptions {
  /** The task-set file, relative to examples/ (default tasks.yaml). */
  taskFile?: string;
  /** Attacks of other suites (or none) to run beside this suite's, by name: honest controls, attacks reused on other tasks. */
  alsoRun?: string[];
  /** Where the attempts and their preflight run (default bwrap). */
  sandbox?: SandboxKind;
}

/** Every attack of `suite` on each of `taskIds` it applies to; `adjust` changes a task first (e.g. held-out required). */
export async function runSuite(
  suite: NonNullable<Attack['suite']>,
  taskIds: string[],
  adjust: (task: Task) => Task = (t) => t,
  options: SuiteOptions = {},
): Promise<SuiteAttempt[]> {
  const root = mkdtempSync(join(tmpdir(), `crucible-redteam-${suite}-`));
  const sandbox = options.sandbox ?? 'bwrap';
  try {
    const taskSetDir = join(root, 'taskset');
    const taskFile = options.taskFile ?? 'tasks.yaml';
    for (const part of ['tasks.yaml', 'repos', 'held-out', 'oracles', dirname(taskFile)])
      if (part !== '.') cpSync(join('examples', part), join(taskSetDir, part), { recursive: true });
    const loaded = new Map(loadTaskSet(join(taskSetDir, taskFile)).tasks.map((t) => [t.id, t]));
    const tasks = new Map(
      taskIds.map((id) => {
        const task = loaded.get(id);
        if (!task) throw new Error(`no bundled task ${id}`);
        return [id, adjust({ ...task, limits: { ...task.limits, agentTimeoutMs: 120_000, testTimeoutMs: 90_000 } })];
      }),
    );
    const plan = ATTACKS.filter((a) => a.suite === suite || options.alsoRun?.includes(a.name)).flatMap((attack) =>
      taskIds.filter((id) => attack.appliesTo(tasks.get(id) as Task)).map((taskId) => ({ attack, taskId })),
    );
    const stateDir = join(root, 'state');
    const runDir = join(stateDir, 'runs', suite);
    const { taskBaselines, remove } = await shareBaselines(
      [...new Set(plan.map((p) => p.taskId))].map((id) => tasks.get(id) as Task),
      { stateDir, runDir, sandbox, oracle: true },
    );
    const attempts: SuiteAttempt[] = [];
    await inPool(plan, async ({ attack, taskId }, index) => {
      const attemptPlan = { attemptId: `${taskId}.${attack.name}`, runId: suite, taskId, taskVersion: '1', agent: attack.name, trial: 0, index };
      const result = await runAttempt(attemptPlan, tasks.get(taskId) as Task, resolveRunAgent(attack.name), { runDir, stateDir, sandbox, taskBaselines });
      attempts.push({ attack, taskId, task: tasks.get(taskId) as Task, result });
    });
    await remove();
    return attempts;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Attempts that ended otherwise than the catalogue says, or ERROR; honest ones with any failed check. */
export function wrongOutcomes(attempts: SuiteAttempt[]): unknown[] {
  return attempts
    .filter(({ attack, task, result }) => {
      const expected = expectedFor(attack, task);
      const failed = result.checks.some((c) => !c.passed);
      return result.verdict === 'ERROR' || !meetsAttackExpectation(expected, result) || (attack.class === 'honest' && failed);
    })
    .map(({ attack, taskId, task, result }) => ({
      attack: attack.name,
      taskId,
      expected: describeExpectation(expectedFor(attack, task)),
      verdict: result.verdict,
      cause: result.cause,
      failed: result.checks.filter((c) => !c.passed).map((c) => `${c.id}: ${c.message}`),
      message: result.message,
    }));
}
