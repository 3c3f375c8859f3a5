import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/domain/agents/index.js';
import { resolveAgent } from '../../src/domain/agents/index.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { runAttempt, type AttemptEnv } from '../../src/engine/attempt.js';
import { sandboxLayout } from '../../src/engine/sandbox-layout.js';
import type { AgentResult, AttemptResult, Task } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const NODE_TEST = 'node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT"';
const HELD_OUT_SECRET = 'held-out-canary-5e1f';

interface FixtureOptions {
  /** `add` is already right: the fail-to-pass test passes at the baseline. */
  alreadyFixed?: boolean;
  testCommand?: string;
  passToPass?: string;
  heldOutRequired?: boolean;
}

/**
 * A task set in a temp dir: a node:test repo whose `add` subtracts, an oracle patch, held-out tests,
 * a pass-to-pass test (`broken`) that never passes, and tests that leave debris in the workspace.
 */
function fixture(options: FixtureOptions = {}): Task {
  const dir = tempDir();
  const files: Record<string, string> = {
    'repo/src/calc.mjs': `export const add = (a, b) => a ${options.alreadyFixed ? '+' : '-'} b;\nexport const one = () => 1;\n`,
    'repo/test/calc.test.mjs': [
      "import assert from 'node:assert/strict';",
      "import { writeFileSync } from 'node:fs';",
      "import { test } from 'node:test';",
      "import { add, one } from '../src/calc.mjs';",
      "writeFileSync('debris.log', 'tests were here');",
      "test('add', () => assert.equal(add(2, 2), 4));",
      "test('one', () => assert.equal(one(), 1));",
      "test('broken', () => assert.equal(1, 2));",
      '',
    ].join('\n'),
    'held/hidden/calc.held.test.mjs': `// ${HELD_OUT_SECRET}\nimport assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { add } from '../src/calc.mjs';\ntest('add more', () => assert.equal(add(5, 7), 12));\n`,
    'fix.patch':
      '--- a/src/calc.mjs\n+++ b/src/calc.mjs\n@@ -1,2 +1,2 @@\n-export const add = (a, b) => a - b;\n+export const add = (a, b) => a + b;\n export const one = () => 1;\n',
    'tasks.yaml': [
      'tasks:',
      '  - id: calc',
      '    repo: { path: repo }',
      '    instruction: add() subtracts; fix it.',
      '    tests:',
      `      command: ${JSON.stringify(options.testCommand ?? `${NODE_TEST} test/`)}`,
      '      fail_to_pass: [add]',
      `      pass_to_pass: ${options.passToPass ?? '[one, broken]'}`,
      '    held_out:',
      '      path: held',
      `      command: ${JSON.stringify(`${NODE_TEST} hidden/`)}`,
      `      required: ${options.heldOutRequired === true}`,
      '    oracle: { patch: fix.patch }',
      '    policy: { allowed_paths: [src/**] }',
      '',
    ].join('\n'),
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return loadTaskSet(join(dir, 'tasks.yaml')).tasks[0] as Task;
}

let counter = 0;
function attempt(task: Task, agent: Agent, env: Partial<AttemptEnv> = {}): Promise<AttemptResult> {
  const stateDir = tempDir();
  const plan = { attemptId: `a${counter++}`, runId: 'r', taskId: task.id, taskVersion: task.version, agent: agent.name, trial: 0, index: 0 };
  return runAttempt(plan, task, agent, { runDir: join(stateDir, 'runs', 'r'), stateDir, sandbox: 'bwrap', ...env });
}

/** An agent that runs one shell command through the executor, and can report a harness fault. */
function shellAgent(name: string, script: string, result: AgentResult = { stopReason: 'completed' }): Agent {
  return {
    name,
    async run(ctx) {
      await ctx.executor.exec({ argv: ['sh', '-c', script], cwd: ctx.workspace, timeoutMs: 30_000, network: 'none', signal: ctx.signal });
      return result;
    },
  };
}

const fixAdd = "sed -i 's/a - b/a + b/' src/calc.mjs";
const failed = (a: AttemptResult): string[] => a.checks.filter((c) => !c.passed).map((c) => c.id);

describe("runAttempt: the verifier is out of the agent's reach", () => {
  it('hides held-out tests, the task set and the results directory from the agent, and runs held-out tests only afterwards', async () => {
    const task = fixture();
    const layout = sandboxLayout({ task, stateDir: '/s', workspace: '/s/w', attemptDir: '/s/a' });
    expect(layout.hidden).toEqual(expect.arrayContaining([dirname(task.sourceFile), task.heldOut?.path]));

    let seen = '';
    const probe: Agent = {
      name: 'probe',
      async run(ctx) {
        const taskDir = dirname(ctx.task.sourceFile);
        const look = [
          `ls -A ${ctx.task.heldOut?.path}`,
          `cat ${taskDir}/held/hidden/calc.held.test.mjs`,
          `cat ${taskDir}/fix.patch`,
          'ls -A hidden ../results',
          'echo "junit=$CRUCIBLE_JUNIT"',
          'echo forged > ../results/tests.junit.xml',
          // Every object the agent's git can reach: the held-out tests were run at the baseline
          // before the agent started, yet none of their content is among them.
          'git cat-file --batch-all-objects --batch',
          fixAdd,
        ].join('; ');
        const out = await ctx.executor.exec({ argv: ['sh', '-c', look], cwd: ctx.workspace, timeoutMs: 30_000, network: 'none', signal: ctx.signal });
        seen = out.stdout + out.stderr;
        return { stopReason: 'completed' };
      },
    };
    const a = await attempt(task, probe);
    expect(seen).not.toContain(HELD_OUT_SECRET);
    expect(seen).not.toContain('a + b');
    expect(seen).toContain('crucible baseline');
    expect(a.baselineHeldOut?.parsed).toBeGreaterThan(0);
    expect(seen).toContain('junit=\n');
    expect(seen).toMatch(/tests\.junit\.xml: (Read-only file system|Directory nonexistent|No such file or directory)/);
    // The held-out tests ran after the agent; the refused try at forging a report is on record.
    expect(a.heldOut).toMatchObject({ passToPass: { total: 1, passed: 1 } });
    expect(a.checks.find((c) => c.id === 'held_out')?.message).toBe('held_out 1/1');
    expect(a).toMatchObject({ verdict: 'FAIL', cause: 'tampered' });
    expect(failed(a)).toEqual(['test_tampering', 'unsafe_commands']);
  });
});

describe('runAttempt: the baseline test run', () => {
  it('cleans up after itself and tells a test that never passed from a regression', async () => {
    const task = fixture();
    const oracle = await attempt(task, resolveAgent('oracle'));
    // `debris.log` written by the baseline run is gone before the agent: no scope alarm, no diff.
    expect(oracle).toMatchObject({ verdict: 'PASS', cause: 'passed', score: 100, diff: { filesChanged: 1 } });
    expect(oracle.baselineTests?.failToPass.failing).toEqual([{ id: 'add', reason: 'failed' }]);
    expect(oracle.checks.find((c) => c.id === 'tests')?.evidence.neverPassed).toEqual({ items: ['broken'], count: 1 });
    expect(oracle.timings.baselineMs).toBeGreaterThan(0);
    // Prepare's parts: the copy and the baseline commit (this task has no setup).
    expect(oracle.timings).toMatchObject({ copyMs: expect.any(Number), baselineCommitMs: expect.any(Number) });
    expect(oracle.timings.setupMs).toBeUndefined();
    expect((oracle.timings.copyMs ?? 0) + (oracle.timings.baselineCommitMs ?? 0)).toBeLessThanOrEqual(oracle.timings.prepareMs + 1);

    // Without the baseline nobody can tell that `broken` never passed: it counts as a regression.
    const blind = await attempt(task, resolveAgent('oracle'), { baselineTests: false });
    expect(blind).toMatchObject({ verdict: 'FAIL', cause: 'regression', baselineTests: undefined });

    const breaksOne = await attempt(task, shellAgent('breaks-one', `${fixAdd} && sed -i 's/=> 1/=> 2/' src/calc.mjs`));
    expect(breaksOne).toMatchObject({ verdict: 'FAIL', cause: 'regression', message: 'passed at the baseline, failing now: one (failed)' });
  });

  it('stops a task whose fail-to-pass tests already pass, before any agent runs: a task error', async () => {
    let ran = false;
    const agent: Agent = { name: 'spy', run: async () => ((ran = true), { stopReason: 'completed' }) };
    const a = await attempt(fixture({ alreadyFixed: true }), agent);
    expect(ran).toBe(false);
    expect(a).toMatchObject({ verdict: 'ERROR', cause: 'task_error', taskError: { defects: [{ field: 'tasks[id=calc].tests.fail_to_pass[0]' }] } });
    expect(a.message).toMatch(/^task error: .*tasks\.yaml: tasks\[id=calc\]\.tests\.fail_to_pass\[0\]: "add" already passes at the baseline/);
    expect(a.harnessError).toBeUndefined();
    expect(a.score).toBeUndefined();
  });

  it("stops a task whose fail-to-pass id the baseline does not report: a task error naming a near id, not the agent's FAIL", async () => {
    let ran = false;
    const agent: Agent = { name: 'spy', run: async () => ((ran = true), { stopReason: 'completed' }) };
    const task = fixture();
    const a = await attempt({ ...task, tests: { ...task.tests, failToPass: ['ad'] } }, agent);
    expect(ran).toBe(false);
    expect(a).toMatchObject({ verdict: 'ERROR', cause: 'task_error' });
    expect(a.taskError?.defects).toEqual([
      {
        file: task.sourceFile,
        field: 'tasks[id=calc].tests.fail_to_pass[0]',
        problem: '"ad" is not among the 3 tests the baseline run reports',
        fix: 'did you mean "add"?',
      },
    ]);
  });

  it("an oracle patch that does not apply is the task's error, not the oracle's crash", async () => {
    const task = fixture();
    const a = await attempt({ ...task, oracle: { patch: task.oracle?.patch?.replace('a - b', 'a * b') ?? '' } }, resolveAgent('oracle'), {
      baselineTests: false,
    });
    expect(a).toMatchObject({ verdict: 'ERROR', cause: 'task_error' });
    expect(a.message).toMatch(/^task error: oracle patch does not apply/);
  });

  it("a test command that never reports, at the baseline either, is the harness's problem", async () => {
    const a = await attempt(fixture({ testCommand: 'true' }), resolveAgent('oracle'));
    expect(a).toMatchObject({ verdict: 'ERROR', cause: 'harness_error', harnessError: { phase: 'verify' } });
    expect(a.message).toMatch(/no usable report at the baseline either/);
  });
});

describe('runAttempt: held-out tests and harness faults', () => {
  const specialCase = "sed -i 's/a - b/(a === 2 \\&\\& b === 2 ? 4 : a - b)/' src/calc.mjs";

  it('reports failing held-out tests apart, and fails the attempt on them only when required', async () => {
    const reported = await attempt(fixture({ passToPass: '[one]' }), shellAgent('special-case', specialCase), { baselineTests: false });
    expect(reported).toMatchObject({ verdict: 'PASS', cause: 'passed', score: 100, heldOut: { passToPass: { total: 1, passed: 0 } } });
    expect(reported.message).toMatch(/held_out 0\/1: add more \(failed\)$/);
    const required = await attempt(fixture({ passToPass: '[one]', heldOutRequired: true }), shellAgent('special-case', specialCase), { baselineTests: false });
    expect(required).toMatchObject({ verdict: 'FAIL', cause: 'tests_failed', message: 'held_out 0/1: add more (failed)' });
  });

  it("an agent failed by the infrastructure is a harness error, not the agent's", async () => {
    const a = await attempt(
      fixture(),
      shellAgent('flaky-gateway', 'true', { stopReason: 'error', errorKind: 'harness', error: 'rate limit retries exhausted' }),
      { baselineTests: false },
    );
    expect(a).toMatchObject({ verdict: 'ERROR', cause: 'harness_error', message: 'agent infrastructure failed: rate limit retries exhausted' });
  });
});

describe('the end of the agent phase', () => {
  it('an agent that floods its HOME (a host directory, like the workspace) is stopped at the workspace limits', async () => {
    const task = fixture();
    task.limits.resources.workspaceFiles = 50;
    // Ends only when stopped: by the watchdog, or else by the 30 s bound on its command, and then the assertions fail.
    const flood = shellAgent('home-flood', 'mkdir -p "$HOME/.cache/x" && i=0; while [ $i -lt 200 ]; do : > "$HOME/.cache/x/f$i"; i=$((i+1)); done; sleep 3600');
    const result = await attempt(task, flood, { baselineTests: false });
    expect(result.cause).toBe('resource_exceeded');
    expect(result.agentResult).toMatchObject({ stopReason: 'resource_exceeded', limit: 'workspace_files' });
    expect(result.agentResult?.error).toMatch(/^HOME grew to more than 50 files \(limits\.workspace_files\)/);
  });

  it('code under test that floods HOME while the tests run is stopped at the workspace limits: FAIL resource_exceeded', async () => {
    const task = fixture();
    task.limits.resources.workspaceFiles = 300;
    // The bound on the test run; the watchdog stops it long before, or the assertions fail.
    task.limits.testTimeoutMs = 120_000;
    const flood = [
      "import { mkdirSync, writeFileSync } from 'node:fs';",
      'const dir = `${process.env.HOME}/.cache/flood`; mkdirSync(dir, { recursive: true });',
      'for (let i = 0; i < 1000; i++) writeFileSync(`${dir}/f${i}`, "");',
      'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3_600_000);',
      'export const add = (a, b) => a + b;',
      'export const one = () => 1;',
      '',
    ].join('\n');
    const agent = shellAgent('test-time-flood', `cat > src/calc.mjs <<'EOF'\n${flood}EOF`);
    const result = await attempt(task, agent, { baselineTests: false });
    expect(result.cause).toBe('resource_exceeded');
    expect(result.resourceLimit).toBe('workspace_files');
    expect(result.tests?.limitExceeded).toBe('workspace_files');
    expect(result.tests?.outputTail ?? '').toMatch(/HOME under test grew to more than 300 files/);
  });

  it('a timed-out agent keeps what it reported, its running command is killed and later ones are refused', async () => {
    const task = fixture();
    task.limits.agentTimeoutMs = 1_500;
    let refused: string | undefined;
    let sleeper: { exitCode: number | null; signal: string | null } | undefined;
    let late: Promise<void> | undefined;
    const stubborn: Agent = {
      name: 'stubborn',
      async run(ctx) {
        // Ignores the abort signal on purpose: a long command, then another once the phase is over.
        late = (async () => {
          sleeper = await ctx.executor.exec({ argv: ['sh', '-c', 'sleep 30'], cwd: ctx.workspace, timeoutMs: 60_000, network: 'none' });
          try {
            await ctx.executor.exec({ argv: ['sh', '-c', 'echo late > src/late.txt'], cwd: ctx.workspace, timeoutMs: 5_000, network: 'none' });
          } catch (error) {
            refused = (error as Error).message;
          }
        })();
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        return { stopReason: 'end_turn', turns: 3, toolCalls: 2 };
      },
    };
    const result = await attempt(task, stubborn, { baselineTests: false });
    await late;
    expect(result.agentResult).toMatchObject({ stopReason: 'timeout', turns: 3, toolCalls: 2 });
    expect(result.cause).toBe('agent_timeout');
    expect(sleeper?.exitCode).toBeNull();
    expect(sleeper?.signal).not.toBeNull();
    expect(refused).toMatch(/agent phase has ended/);
    expect(result.diff?.files.map((f) => f.path)).toEqual([]);
  });
});
