/**
 * The synthetic side of matrix stress: tasks that name no real repo, and an attempt runner that
 * sleeps a little and does some integer arithmetic instead of running an agent, so the real
 * scheduler, checkpoint, history and statistics are all that is measured. The verdict is a pure
 * function of (task, agent, trial), so the expected aggregate is known without the engine.
 */
import type { Agent } from '../../domain/agents/index.js';
import { DEFAULT_LIMITS } from '../../domain/config/index.js';
import { DEFAULT_RESOURCE_LIMITS } from '../../domain/config/index.js';
import type { AttemptRunner } from '../../engine/index.js';
import type { AttemptPlan, AttemptResult, Task } from '../../core/types/index.js';

export const STRESS_AGENTS = ['synthetic-a', 'synthetic-b'] as const;
export const STRESS_TRIALS = 5;

/** Deliberate breakage, for tests: the integrity checks must notice it. */
export type StressFault = 'duplicate-identity';

/** What the runner saw: every call, in call order, and the order attempts finished in. */
export interface RunnerLog {
  submitted: string[];
  finished: string[];
}

export function stressTasks(dir: string, count: number): Task[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `stress-${String(i).padStart(5, '0')}`,
    version: '1',
    sourceFile: `${dir}/synthetic.yaml`,
    repo: { kind: 'local', path: `${dir}/repo` },
    instruction: `Synthetic task ${i}.`,
    setup: [],
    tests: { command: 'true', failToPass: [`t::case_${i}`], passToPass: 'all_others', testPaths: [] },
    policy: { preset: 'default', forbiddenPaths: [], allowedPaths: [], unsafeCommands: [], secrets: { paths: [], literals: [], presets: [] }, severities: {} },
    limits: { ...DEFAULT_LIMITS, resources: { ...DEFAULT_RESOURCE_LIMITS } },
    metadata: { tags: [], category: 'synthetic', difficulty: i % 3 === 0 ? 'hard' : 'easy' },
  }));
}

export function stressAgent(name: string): Agent {
  return { name, run: () => Promise.resolve({ stopReason: 'completed' }) };
}

/** Some integer arithmetic over the attempt's identity: the "work", and where its verdict comes from. */
export function arithmetic(taskId: string, agent: string, trial: number): number {
  let x = 0x811c9dc5;
  for (const c of `${taskId}|${agent}|${trial}`) x = Math.imul(x ^ c.charCodeAt(0), 0x01000193) >>> 0;
  for (let i = 0; i < 2000; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
  }
  return x;
}

/** synthetic-a passes about 70% of attempts, synthetic-b about 45%. */
export function expectedPass(taskId: string, agent: string, trial: number): boolean {
  return arithmetic(taskId, agent, trial) % 100 < (agent === STRESS_AGENTS[0] ? 70 : 45);
}

export function stressRunner(log: RunnerLog, fault?: StressFault): AttemptRunner {
  let first: AttemptPlan | undefined;
  return async (plan: AttemptPlan, _task: Task, _agent: Agent, env): Promise<AttemptResult> => {
    log.submitted.push(plan.attemptId);
    first ??= plan;
    const x = arithmetic(plan.taskId, plan.agent, plan.trial);
    const started = new Date();
    // Mostly 0–2 ms, now and then 8 ms, so later attempts overtake earlier ones and the summary's plan order is tested.
    await new Promise((done) => setTimeout(done, x % 16 === 0 ? 8 : x % 3));
    const passed = expectedPass(plan.taskId, plan.agent, plan.trial);
    // The fault: the second attempt comes back claiming the first one's identity.
    const identity = fault === 'duplicate-identity' && plan.index === 1 && first !== plan ? first : plan;
    const finished = new Date();
    log.finished.push(plan.attemptId);
    return {
      ...identity,
      schemaVersion: 1,
      verdict: passed ? 'PASS' : 'FAIL',
      cause: passed ? 'passed' : 'tests_failed',
      message: passed ? '' : 'synthetic failure',
      score: passed ? 100 : 0,
      sandbox: env.sandbox,
      diff: {
        files: [{ path: 'src/a.py', kind: 'modified', binary: false, added: 1 + (x % 7), deleted: x % 3 }],
        filesChanged: 1,
        added: 1 + (x % 7),
        deleted: x % 3,
      },
      checks: [{ id: 'tests', passed, severity: 'error', message: passed ? 'ok' : 'failing', evidence: {} }],
      timings: { prepareMs: 0, agentMs: x % 3, verifyMs: 0, totalMs: finished.getTime() - started.getTime() },
      startedAt: started.toISOString(),
      finishedAt: finished.toISOString(),
    };
  };
}
