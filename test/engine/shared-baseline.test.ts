import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/domain/agents/index.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { executeRun } from '../../src/engine/index.js';
import { baselineCommitCount, treeCopyCount } from '../../src/infra/workspace/index.js';
import type { AttemptResult } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** Two tasks on one local repo; setup makes gen/out.txt; the test fails until value.txt says `right`. */
function taskSet(dir: string): string {
  const repo = join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(repo, 'value.txt'), 'wrong\n');
  writeFileSync(
    join(repo, 'check.sh'),
    [
      'if grep -q right value.txt; then r="<testcase classname=\\"check\\" name=\\"fixed\\"/>"; else r="<testcase classname=\\"check\\" name=\\"fixed\\"><failure message=\\"no\\"/></testcase>"; fi',
      'printf \'<testsuite name="s" tests="1">%s</testsuite>\' "$r" > "$CRUCIBLE_JUNIT"',
      'grep -q right value.txt',
      '',
    ].join('\n'),
  );
  const task = (id: string): string =>
    [
      `  - id: ${id}`,
      '    repo: { path: repo }',
      '    instruction: fix it',
      '    setup: ["mkdir -p gen && echo built > gen/out.txt"]',
      '    tests:',
      '      command: sh check.sh',
      '      fail_to_pass: [check::fixed]',
    ].join('\n');
  const file = join(dir, 'tasks.yaml');
  writeFileSync(file, `tasks:\n${task('a')}\n${task('b')}\n`);
  return file;
}

interface Seen {
  marker: boolean;
  value: string;
  generated: string;
}

/** Fixes the task, and leaves a mark on everything it can reach in its workspace (a tracked file, setup's output, a new file, its .git). */
function scribbler(seen: Seen[]): Agent {
  return {
    name: 'scribbler',
    run: async ({ workspace }) => {
      seen.push({
        marker: existsSync(join(workspace, 'marker.txt')),
        value: readFileSync(join(workspace, 'value.txt'), 'utf8'),
        generated: readFileSync(join(workspace, 'gen', 'out.txt'), 'utf8'),
      });
      writeFileSync(join(workspace, 'marker.txt'), 'was here\n');
      writeFileSync(join(workspace, 'value.txt'), 'right\n');
      writeFileSync(join(workspace, 'gen', 'out.txt'), 'tampered\n');
      writeFileSync(join(workspace, '.git', 'HEAD'), 'ref: refs/heads/elsewhere\n');
      return { stopReason: 'completed' };
    },
  };
}

describe("a task's baseline built once per run", () => {
  it('commits one baseline per task for a 3-attempt run, and every attempt starts from its own clean copy of it', async () => {
    const dir = tempDir();
    const file = taskSet(dir);
    const { tasks } = loadTaskSet(file);
    const seen: Seen[] = [];
    const before = baselineCommitCount();
    const { attempts, runDir } = await executeRun({
      taskSetFile: 'tasks.yaml',
      taskSetPath: file,
      tasks,
      agents: ['scribbler'],
      trials: 3,
      stateDir: join(dir, '.crucible'),
      settings: { sandbox: 'local' },
      concurrency: 1,
      history: false,
      resolveAgent: () => scribbler(seen),
    });
    // The preflight's, one per task; before, each attempt committed its own as well (2 + 6).
    expect(baselineCommitCount() - before).toBe(2);
    expect(attempts.map((a) => `${a.taskId} ${a.verdict} ${a.cause}`)).toEqual([
      'a PASS passed',
      'a PASS passed',
      'a PASS passed',
      'b PASS passed',
      'b PASS passed',
      'b PASS passed',
    ]);
    // What one attempt's agent did reached no later attempt of the same task.
    expect(seen).toEqual(Array.from({ length: 6 }, () => ({ marker: false, value: 'wrong\n', generated: 'built\n' })));
    for (const a of attempts) {
      const recorded = JSON.parse(readFileSync(join(runDir, 'attempts', a.attemptId, 'attempt.json'), 'utf8')) as AttemptResult;
      expect(recorded.diff?.files.map((f) => `${f.kind} ${f.path}`).sort()).toEqual(['added marker.txt', 'modified value.txt']);
    }
    expect(new Set(attempts.filter((a) => a.taskId === 'a').map((a) => a.baselineCommit)).size).toBe(1);
    // The shared trees go with the run; the baseline reports stay as evidence.
    for (const task of readdirSync(join(runDir, 'preflight'))) expect(readdirSync(join(runDir, 'preflight', task))).toEqual(['baseline.junit.xml']);
  });

  it('does not share a tree whose setup output names its own path: every attempt runs that setup where it works', async () => {
    const dir = tempDir();
    const file = taskSet(dir);
    writeFileSync(file, readFileSync(file, 'utf8').replace('echo built > gen/out.txt', 'pwd > gen/out.txt'));
    const { tasks } = loadTaskSet(file);
    const seen: Seen[] = [];
    const workspaces: string[] = [];
    const agent = scribbler(seen);
    const before = baselineCommitCount();
    const { attempts } = await executeRun({
      taskSetFile: 'tasks.yaml',
      taskSetPath: file,
      tasks: tasks.filter((t) => t.id === 'a'),
      agents: ['scribbler'],
      trials: 2,
      stateDir: join(dir, '.crucible'),
      settings: { sandbox: 'local' },
      concurrency: 1,
      history: false,
      resolveAgent: () => ({ ...agent, run: (ctx) => (workspaces.push(ctx.workspace), agent.run(ctx)) }),
    });
    expect(attempts.map((a) => a.verdict)).toEqual(['PASS', 'PASS']);
    // The preflight's and each attempt's own.
    expect(baselineCommitCount() - before).toBe(3);
    expect(seen.map((s) => s.generated)).toEqual(workspaces.map((w) => `${w}\n`));
  });

  it("copies the task's tree twice in the preflight (the cache, its test run) and twice per attempt (its workspace, its test run), and no test run writes into the shared tree", async () => {
    const dir = tempDir();
    const file = taskSet(dir);
    // The tests leave a file in the tree they run in, as pytest's caches or a build would.
    writeFileSync(join(dir, 'repo', 'check.sh'), `echo ran >> test-debris.txt\n${readFileSync(join(dir, 'repo', 'check.sh'), 'utf8')}`);
    const { tasks } = loadTaskSet(file);
    const debris: boolean[] = [];
    const seen: Seen[] = [];
    const agent = scribbler(seen);
    const copiesBefore = treeCopyCount();
    const { attempts } = await executeRun({
      taskSetFile: 'tasks.yaml',
      taskSetPath: file,
      tasks: tasks.filter((t) => t.id === 'a'),
      agents: ['scribbler'],
      trials: 3,
      stateDir: join(dir, '.crucible'),
      settings: { sandbox: 'local' },
      concurrency: 1,
      history: false,
      resolveAgent: () => ({ ...agent, run: (ctx) => (debris.push(existsSync(join(ctx.workspace, 'test-debris.txt'))), agent.run(ctx)) }),
    });
    expect(attempts.map((a) => a.verdict)).toEqual(['PASS', 'PASS', 'PASS']);
    // The preflight: setup's tree into the prepared cache, and its baseline run's copy; each attempt
    // its workspace and its test run's copy. Before, the preflight also made a pristine copy (9).
    expect(treeCopyCount() - copiesBefore).toBe(2 + 2 * 3);
    // Neither the preflight's baseline run nor any attempt's test run reached the tree the next attempt copies.
    expect(debris).toEqual([false, false, false]);
    expect(seen.map((s) => s.value)).toEqual(['wrong\n', 'wrong\n', 'wrong\n']);
  });

  it("under bwrap an agent's command cannot write into the task's shared tree, the tree every later attempt and test run copies", async () => {
    const dir = tempDir();
    const file = taskSet(dir);
    const { tasks } = loadTaskSet(file);
    const stateDir = join(dir, '.crucible');
    const writes: Array<{ exitCode: number | null; seen: string }> = [];
    const agent: Agent = {
      name: 'writer',
      run: async ({ executor, workspace }) => {
        const runs = join(stateDir, 'runs');
        const [run = ''] = readdirSync(runs);
        const [task = ''] = readdirSync(join(runs, run, 'preflight'));
        const shared = join(runs, run, 'preflight', task, 'workspace');
        const result = await executor.exec({
          argv: ['sh', '-c', `echo right > '${shared}/value.txt' && echo right > '${shared}/gen/out.txt'`],
          cwd: workspace,
          timeoutMs: 60_000,
          network: 'none',
        });
        // Read as the agent sees it, through the executor: the contract (AgentContext) says so, and under
        // bwrap the workspace is an overlay the host's own path does not show.
        const seen = await executor.exec({ argv: ['cat', 'value.txt'], cwd: workspace, timeoutMs: 60_000, network: 'none' });
        writes.push({ exitCode: result.exitCode, seen: seen.stdout });
        return { stopReason: 'completed' };
      },
    };
    const { attempts } = await executeRun({
      taskSetFile: 'tasks.yaml',
      taskSetPath: file,
      tasks: tasks.filter((t) => t.id === 'a'),
      agents: ['writer'],
      trials: 2,
      stateDir,
      settings: { sandbox: 'bwrap' },
      concurrency: 1,
      history: false,
      resolveAgent: () => agent,
    });
    // The path does not exist inside the sandbox (the state directory is hidden): the write fails.
    expect(writes.map((w) => w.exitCode === 0)).toEqual([false, false]);
    expect(writes.map((w) => w.seen)).toEqual(['wrong\n', 'wrong\n']);
    // The command named a path in the state directory: the checks judge the try itself, and neither attempt passes.
    expect(attempts.map((a) => `${a.verdict} ${a.cause}`)).toEqual(['FAIL policy_violation', 'FAIL policy_violation']);
  });
});
