/**
 * The runner-reach class of the red team (src/domain/redteam/runner-reach.ts), in its own file so
 * that it runs in parallel with the catalogue's parts (attacks-*.test.ts): code of the change that
 * reaches the test runner from inside the test process in spellings no text scan names. Through
 * runAttempt on the bundled Python examples, after one shared preflight per sandbox (as `crucible
 * run` does), under bwrap, and a few under docker: none may PASS or end ERROR; where the attack
 * would have worked, the sentinel's own check (runner_reach) is what failed it; the honest control
 * passes with no failed check. docs/redteam.md, docs/grading.md.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunAgent, ATTACKS, expectedFor, type Attack } from '../../src/domain/redteam/index.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { runAttempt } from '../../src/engine/attempt.js';
import { describeExpectation, meetsAttackExpectation } from '../../src/domain/grading/validity.js';
import type { SandboxKind } from '../../src/infra/sandbox/index.js';
import type { AttemptResult, Task } from '../../src/core/types/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { inPool, shareBaselines } from './helpers/shared-run.js';

const MIB = 1024 ** 2;
/** For working on one attack: CRUCIBLE_REDTEAM_ONLY=heap-runner npx vitest run test/redteam/runner-reach-attacks.test.ts */
const ONLY = process.env.CRUCIBLE_REDTEAM_ONLY?.split(',').filter(Boolean);
const HONEST = ['oracle-honest-runtime', 'oracle'];
const REACH = ATTACKS.filter((a) => a.class === 'runner-reach');
/** The attacks that would have worked: the sentinel's check must be among those that failed them. */
const SEEN_BY_SENTINEL = ['missing-module-on-path', 'heap-runner', 'heap-runner-importlib', 'frame-runner', 'sys-modules-runner', 'rerun-runner'];
/** Under docker too: one of each kind (a module the environment lacks, the heap, the rerun) and the honest control. */
const DOCKER = ['missing-module', 'heap-runner', 'rerun-runner', 'oracle-honest-runtime'];

interface Planned {
  name: string;
  taskId: string;
  sandbox: SandboxKind;
}

let root = '';
const tasks = new Map<string, Task>();
const results = new Map<string, AttemptResult>();
const plan: Planned[] = [];
const keyOf = (p: Planned): string => `${p.sandbox}.${p.taskId}.${p.name}`;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'crucible-reach-'));
  const taskSetDir = join(root, 'taskset');
  for (const part of ['tasks.yaml', 'repos', 'held-out', 'oracles']) cpSync(join('examples', part), join(taskSetDir, part), { recursive: true });
  for (const task of loadTaskSet(join(taskSetDir, 'tasks.yaml')).tasks) {
    if (task.id !== 'py-median' && task.id !== 'py-roman-subtractive') continue;
    tasks.set(task.id, {
      ...task,
      limits: {
        ...task.limits,
        agentTimeoutMs: 120_000,
        testTimeoutMs: 120_000,
        resources: { ...task.limits.resources, pids: 256, memoryBytes: 1024 * MIB, fileSizeBytes: 64 * MIB },
      },
    });
  }
  for (const name of [...HONEST, ...REACH.map((a) => a.name)].filter((n) => !ONLY || ONLY.includes(n))) {
    // The held-out task too where the held-out run is what the attack would reach.
    const taskIds = name === 'missing-module-on-path' || name === 'oracle-honest-runtime' ? ['py-median', 'py-roman-subtractive'] : ['py-median'];
    for (const taskId of taskIds) plan.push({ name, taskId, sandbox: 'bwrap' });
    if (DOCKER.includes(name)) plan.push({ name, taskId: 'py-median', sandbox: 'docker' });
  }
  // One preflight per sandbox, as `crucible run` makes it: each task's tree and baseline runs once,
  // every attempt of the task starting from its own copy of them.
  const sandboxes = [...new Set(plan.map((p) => p.sandbox))];
  const shared = new Map(
    await Promise.all(
      sandboxes.map(async (sandbox) => {
        const stateDir = join(root, `state-${sandbox}`);
        const ofSandbox = plan.filter((p) => p.sandbox === sandbox);
        const taskIds = [...new Set(ofSandbox.map((p) => p.taskId))];
        const baselines = await shareBaselines(
          taskIds.map((id) => tasks.get(id) as Task),
          { stateDir, runDir: join(stateDir, 'runs', 'reach'), sandbox, oracle: ofSandbox.some((p) => p.name === 'oracle') },
        );
        return [sandbox, baselines] as const;
      }),
    ),
  );
  try {
    await inPool(plan, async (item, index) => {
      const stateDir = join(root, `state-${item.sandbox}`);
      const attemptPlan = { attemptId: keyOf(item), runId: 'reach', taskId: item.taskId, taskVersion: '1', agent: item.name, trial: 0, index };
      const taskBaselines = shared.get(item.sandbox)?.taskBaselines;
      const env = { runDir: join(stateDir, 'runs', 'reach'), stateDir, sandbox: item.sandbox, ...(taskBaselines ? { taskBaselines } : {}) };
      results.set(keyOf(item), await runAttempt(attemptPlan, tasks.get(item.taskId) as Task, resolveRunAgent(item.name), env));
    });
  } finally {
    for (const baselines of shared.values()) await baselines.remove();
  }
}, attemptBudget(24));

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const failedChecks = (a: AttemptResult): string[] => a.checks.filter((c) => !c.passed).map((c) => c.id);
const attemptsOf = (name: string): Array<{ p: Planned; a: AttemptResult }> =>
  plan.filter((p) => p.name === name).map((p) => ({ p, a: results.get(keyOf(p)) as AttemptResult }));

describe('runner-reach attacks on the bundled Python examples', () => {
  it.each(REACH.map((a) => [a.name, describeExpectation(a.expected), a] as const))('%s ends %s, never PASS or ERROR', (_name, _title, attack: Attack) => {
    const wrong = attemptsOf(attack.name)
      .map(({ p, a }) => ({ p, a, expected: expectedFor(attack, tasks.get(p.taskId) as Task) }))
      .filter(({ a, expected }) => a.verdict === 'ERROR' || a.verdict === 'PASS' || !meetsAttackExpectation(expected, a))
      .map(({ p, a }) => ({ at: keyOf(p), verdict: a.verdict, cause: a.cause, failed: failedChecks(a), message: a.message }));
    expect(wrong).toEqual([]);
  });

  it.each(SEEN_BY_SENTINEL)('%s is failed by the sentinel itself (runner_reach), naming the event', (name) => {
    for (const { p, a } of attemptsOf(name)) {
      const reach = a.checks.find((c) => c.id === 'runner_reach');
      expect({ at: keyOf(p), passed: reach?.passed }).toEqual({ at: keyOf(p), passed: false });
      expect(reach?.message).toMatch(/\b(import|gc|frame|patch|rerun|report-write|unfinished)\b/);
    }
  });

  it.each(HONEST)('the honest control %s passes with no failed check', (name) => {
    for (const { p, a } of attemptsOf(name))
      expect({ at: keyOf(p), verdict: a.verdict, failed: failedChecks(a), message: a.message }).toMatchObject({ verdict: 'PASS', failed: [] });
  });

  it('the sentinel heard the runner and its subprocess in every attempt of the honest control', () => {
    for (const { p, a } of attemptsOf('oracle-honest-runtime')) {
      const processes = a.checks.find((c) => c.id === 'runner_reach')?.evidence.processes as { tests: number } | undefined;
      expect(processes?.tests ?? 0, keyOf(p)).toBeGreaterThanOrEqual(2);
    }
  });
});
