/**
 * Attacks on the bwrap init's report channel (src/domain/redteam/supervisor-channel.ts): code under
 * test that takes the init's fd 3 (pidfd_getfd, /proc/1/fd/3, ptrace) and writes a setup error, an
 * exit record, or one report too many. Through runAttempt on the bundled Python task under bwrap,
 * every one must end FAIL (the bug is still in; never PASS, never ERROR: a forged report is no
 * harness error), the channel must have refused it, and the honest control beside them passes
 * with no failed check. docs/grading.md#the-supervisor-channel.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { oracleAgent } from '../../src/domain/agents/index.js';
import type { Agent } from '../../src/domain/agents/index.js';
import { extraInitReportAgent, forgedInitExitAgent, forgedInitSetupErrorAgent } from '../../src/domain/redteam/supervisor-channel.js';
import { runAttempt } from '../../src/engine/attempt.js';
import type { AttemptResult, Task } from '../../src/core/types/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { inPool, shareBaselines } from './helpers/shared-run.js';

const FORGERS = [forgedInitSetupErrorAgent, forgedInitExitAgent, extraInitReportAgent];
let root = '';
let task: Task;
const results = new Map<string, AttemptResult>();

// One run: the task's tree and baseline tests taken once by the preflight, as `crucible run` does;
// each attempt starts from its own copy and is judged on its own tests, two at a time.
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'crucible-redteam-supervisor-'));
  for (const part of ['tasks.yaml', 'repos', 'held-out', 'oracles']) cpSync(join('examples', part), join(root, 'taskset', part), { recursive: true });
  task = loadTaskSet(join(root, 'taskset', 'tasks.yaml')).tasks.find((t) => t.id === 'py-median') as Task;
  const stateDir = join(root, 'state');
  const runDir = join(stateDir, 'runs', 'r');
  const shared = await shareBaselines([task], { stateDir, runDir, sandbox: 'bwrap', oracle: true });
  try {
    await inPool([...FORGERS, oracleAgent], async (agent, index) => {
      const plan = { attemptId: `${task.id}.${agent.name}`, runId: 'r', taskId: task.id, taskVersion: task.version, agent: agent.name, trial: 0, index };
      results.set(agent.name, await runAttempt(plan, task, agent, { runDir, stateDir, sandbox: 'bwrap', taskBaselines: shared.taskBaselines }));
    });
  } finally {
    await shared.remove();
  }
}, attemptBudget(6));

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const resultOf = (agent: Agent): AttemptResult => {
  const a = results.get(agent.name);
  if (!a) throw new Error(`no attempt of ${agent.name}`);
  return a;
};

describe('forged reports on the bwrap init’s channel', () => {
  it.each(FORGERS.map((a) => [a.name, a] as const))('%s: the channel refuses the code under test; FAIL, never PASS nor ERROR', (_name, agent) => {
    const a = resultOf(agent);
    expect({ verdict: a.verdict, cause: a.cause, message: a.message }).toMatchObject({ verdict: 'FAIL' });
    expect(a.cause).not.toBe('harness_error');
    // Refused at the kernel (test/sandbox/bwrap-supervisor.test.ts shows each refusal): nothing reached the channel.
    expect(a.tests?.forgedReport).toBeUndefined();
  });

  it('the honest control (the oracle) passes with no failed check', () => {
    const a = resultOf(oracleAgent);
    expect({ verdict: a.verdict, cause: a.cause, failed: a.checks.filter((c) => !c.passed).map((c) => c.id) }).toEqual({
      verdict: 'PASS',
      cause: 'passed',
      failed: [],
    });
  });
});
