import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/domain/agents/index.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { runAttempt } from '../../src/engine/attempt.js';
import type { Task } from '../../src/core/types/index.js';
import { fakeExecutors, junitTests } from '../helpers/fake-executor.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** A task whose tests and held-out tests are fake commands the fake executor answers. */
function fixture(): Task {
  const dir = tempDir();
  const files: Record<string, string> = {
    'repo/src/value.txt': 'broken\n',
    'repo/test/spec.txt': 'the tests live here\n',
    'held/held.txt': 'held-out tests\n',
    'tasks.yaml': [
      'tasks:',
      '  - id: value',
      '    repo: { path: repo }',
      '    instruction: make value.txt say fixed.',
      '    tests:',
      '      command: run-tests',
      '      fail_to_pass: ["spec::fixed"]',
      '      pass_to_pass: ["spec::stable"]',
      '    held_out:',
      '      path: held',
      '      command: run-held-out',
      '      required: true',
      '',
    ].join('\n'),
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return loadTaskSet(join(dir, 'tasks.yaml')).tasks[0] as Task;
}

/** An agent that asks its executor for one command; the fake executor's handler makes the fix. */
const fixer: Agent = {
  name: 'fixer',
  async run(ctx) {
    await ctx.executor.exec({ argv: ['sh', '-c', 'apply-fix'], cwd: ctx.workspace, timeoutMs: 1_000, network: 'none', signal: ctx.signal });
    return { stopReason: 'completed' };
  },
};

describe('the engine takes its executors from the factory it is given', () => {
  it('an attempt in-process: the agent command once, the tests at the baseline and after, each in a fresh copy with a fresh HOME', async () => {
    const task = fixture();
    const fake = fakeExecutors({
      'apply-fix': (request) => writeFileSync(join(request.cwd, 'src', 'value.txt'), 'fixed\n'),
      'run-tests': junitTests((value) => ({ fixed: value === 'fixed', stable: true })),
      'run-held-out': junitTests((value) => ({ 'held fixed': value === 'fixed', 'held stable': true }), 'held.txt'),
    });
    const stateDir = tempDir();
    const plan = { attemptId: 'a0', runId: 'r', taskId: task.id, taskVersion: task.version, agent: fixer.name, trial: 0, index: 0 };
    const result = await runAttempt(plan, task, fixer, { runDir: join(stateDir, 'runs', 'r'), stateDir, sandbox: 'bwrap', executorFactory: fake.factory });

    expect(result, result.message).toMatchObject({ verdict: 'PASS', cause: 'passed' });
    expect(fake.calls.map((c) => c.command)).toEqual(['run-tests', 'run-held-out', 'apply-fix', 'run-tests', 'run-held-out']);
    const workspace = join(stateDir, 'runs', 'r', 'attempts', 'a0', 'workspace');
    const testRuns = fake.calls.filter((c) => c.command !== 'apply-fix');
    for (const run of testRuns) {
      // One path for every copy; what the run before left there (debris.log, HOME's .debris) is gone.
      expect(run.request.cwd).toBe(workspace);
      expect(run.workspaceEntries).not.toContain('debris.log');
      expect(run.homeEntries).toEqual([]);
      expect(run.request.network).toBe('none');
      expect(run.layout.limits).toMatchObject({ pids: task.limits.resources.pids });
    }
    // The held-out files join the copy only for their own runs, never the agent's workspace or the tests' copies.
    expect(testRuns.map((c) => c.workspaceEntries.includes('held.txt'))).toEqual([false, true, false, true]);
    expect(fake.calls.find((c) => c.command === 'apply-fix')?.workspaceEntries).not.toContain('held.txt');
    // The baseline runs saw the bug, the runs after the agent its fix.
    expect(result.baselineTests?.failToPass.failing.map((f) => f.id)).toEqual(['spec::fixed']);
    expect(result.tests?.failToPass).toMatchObject({ passed: 1, total: 1 });
    // Required of the held-out run: the case that passed at the baseline; the other is judged as all_others.
    expect(result.heldOut?.failToPass).toMatchObject({ passed: 1, total: 1 });
    expect(result.heldOut?.passToPass).toMatchObject({ passed: 1, total: 1 });
    expect(fake.closed).toBe(fake.made);
  });
});
