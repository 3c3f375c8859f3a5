import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunSummaryFile } from '../../src/engine/index.js';
import type { RunPlanFile } from '../../src/domain/run-dir/index.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { SMOKE_SUITE, twoSetSuite } from './fixtures.js';

const tempDir = useTempDirs();

const LOCAL = ['--sandbox', 'local', '--reporter', 'markdown,junit', '-j', '2'];

function rowOf(summary: RunSummaryFile, taskSet: string, agent: string) {
  return summary.stats.byTaskSet?.find((s) => s.taskSet === taskSet)?.agents.find((a) => a.agent === agent);
}

describe('crucible run suite.yaml', () => {
  it('runs every task set as one run: one plan, per-task-set statistics in summary.json and every report', async () => {
    const dir = tempDir();
    const { suiteFile } = twoSetSuite(dir, SMOKE_SUITE);
    const result = await runCli(['run', suiteFile, ...LOCAL, '--out', join(dir, 'state'), '--json'], { attempts: 9 });
    expect(result.status, result.stderr).toBe(1);
    const summary = JSON.parse(result.stdout) as RunSummaryFile;
    // 3 tasks (alpha t1, t3 by tag; beta t2 by id) × (oracle 2 runs + nop 1 run).
    expect(summary.planned).toBe(9);
    expect(summary.counts).toEqual({ PASS: 6, FAIL: 3, ERROR: 0 });
    expect([...new Set(summary.attempts.map((a) => a.taskId))]).toEqual(['alpha/t1', 'alpha/t3', 'beta/t2']);
    expect(summary.stats.byTaskSet?.map((s) => [s.taskSet, s.tasks, s.attempts])).toEqual([
      ['alpha', 2, 6],
      ['beta', 1, 3],
    ]);
    expect(rowOf(summary, 'alpha', 'oracle')?.passRate).toMatchObject({ rate: 1, n: 4, tasks: 2 });
    expect(rowOf(summary, 'alpha', 'nop')?.passRate).toMatchObject({ rate: 0, n: 2, tasks: 2 });
    expect(rowOf(summary, 'beta', 'oracle')?.passRate).toMatchObject({ rate: 1, n: 2, tasks: 1 });
    const betaNop = rowOf(summary, 'beta', 'nop')?.passRate;
    expect(betaNop).toMatchObject({ rate: 0, n: 1 });
    expect(betaNop?.high).toBeGreaterThan(0.5);

    const runDir = join(dir, 'state', 'runs', summary.runId);
    const plan = JSON.parse(readFileSync(join(runDir, 'plan.json'), 'utf8')) as RunPlanFile;
    expect(plan.taskSets).toEqual({ 'alpha/t1': 'alpha', 'alpha/t3': 'alpha', 'beta/t2': 'beta' });
    expect(plan.agentTrials).toEqual({ nop: 1 });

    // The printed report (stderr under --json), Markdown and JUnit break results down per task set.
    expect(result.stderr).toMatch(/by task set\n.*task set\s+agent\s+pass rate/);
    expect(result.stderr).toMatch(/beta\s+oracle\s+100\.0%\s+\[\d+\.\d%, 100\.0%\]\s+2\s+1/);
    const markdown = readFileSync(join(runDir, 'report.md'), 'utf8');
    expect(markdown).toContain('## By task set');
    expect(markdown).toMatch(/\| alpha \| nop \| 0% .*\| 0\/2 \| 2 \| 0 \|/);
    const junit = readFileSync(join(runDir, 'results.junit.xml'), 'utf8');
    expect(junit.match(/<testsuite name="[^"]+"/g)).toEqual(['<testsuite name="alpha"', '<testsuite name="beta"']);
    expect(junit).toContain('classname="nop" name="beta/t2 #0"');
  });

  it('--task takes a prefixed id; --agent and --runs override the suite', async () => {
    const dir = tempDir();
    const { suiteFile } = twoSetSuite(dir, SMOKE_SUITE);
    const result = await runCli(['run', suiteFile, ...LOCAL, '--out', join(dir, 'state'), '--task', 'beta/t2', '--agent', 'nop', '--runs', '3', '--json'], {
      attempts: 3,
    });
    expect(result.status, result.stderr).toBe(1);
    const summary = JSON.parse(result.stdout) as RunSummaryFile;
    expect(summary.attempts.map((a) => `${a.taskId} ${a.agent} ${a.trial}`)).toEqual(['beta/t2 nop 0', 'beta/t2 nop 1', 'beta/t2 nop 2']);
    expect(summary.stats.byTaskSet?.map((s) => s.taskSet)).toEqual(['beta']);

    const unknown = await runCli(['run', suiteFile, '--out', join(dir, 'state'), '--task', 't2']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/--task t2: no such task in .*suite\.yaml \(fix: did you mean beta\/t2\? use one of alpha\/t1, alpha\/t3, beta\/t2\)/);
  });

  it('a partial run resumes, with crucible resume and with run --resume, to the same one plan', async () => {
    const dir = tempDir();
    const { suiteFile } = twoSetSuite(dir, SMOKE_SUITE.replace('  - oracle\n  - agent: nop\n    runs: 1\n', '  - agent: nop\n    runs: 1\n  - oracle\n'));
    const out = join(dir, 'state');
    // nop runs first and fails: fail-fast stops the run after one attempt.
    const partial = await runCli(['run', suiteFile, ...LOCAL, '-j', '1', '--fail-fast', '--out', out, '--json'], { attempts: 1 });
    expect(partial.status, partial.stderr).toBe(1);
    const first = JSON.parse(partial.stdout) as RunSummaryFile;
    expect(first.planned).toBe(9);
    expect(first.executed).toBeLessThan(9);

    const resumed = await runCli(['resume', first.runId, '--out', out, '--json'], { attempts: 9 });
    expect(resumed.status, resumed.stderr).toBe(1);
    const done = JSON.parse(resumed.stdout) as RunSummaryFile;
    expect(done.runId).toBe(first.runId);
    expect(done.executed).toBe(9);
    expect(done.reused).toBe(first.executed);
    expect(rowOf(done, 'alpha', 'oracle')?.passRate).toMatchObject({ rate: 1, n: 4 });

    // Resuming again through `run --resume` finds the same plan and nothing left to do.
    const again = await runCli(['run', suiteFile, ...LOCAL, '--out', out, '--resume', first.runId, '--json'], { attempts: 0 });
    expect(again.status, again.stderr).toBe(1);
    expect((JSON.parse(again.stdout) as RunSummaryFile).reused).toBe(9);
  });

  it('crucible validate takes a suite: every selected task of every set, by its prefixed id', async () => {
    const dir = tempDir();
    const { suiteFile } = twoSetSuite(dir, SMOKE_SUITE);
    const result = await runCli(['validate', suiteFile, '--sandbox', 'local', '--runs', '1', '--out', join(dir, 'state')], { attempts: 6 });
    expect(result.status, result.stderr).toBe(0);
    for (const id of ['alpha/t1', 'alpha/t3', 'beta/t2']) expect(result.stdout).toMatch(new RegExp(`valid\\s+${id}\\s`));
    expect(result.stdout).toContain('all 3 tasks valid');
  });

  it('bad suite input exits 2 with one line naming the file, the field and the fix', async () => {
    const dir = tempDir();
    const { suiteFile } = twoSetSuite(dir, 'suite: s\ntask_sets:\n  - path: alpha/tasks.yaml\n  - path: beta/tasks.yaml\n');
    const result = await runCli(['run', suiteFile, '--agent', 'nop', '--out', join(dir, 'state')]);
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /suite\.yaml:4:\d+: task_sets\[1\]\.path: task set name "tasks" is also task_sets\[0\]'s .*\(fix: give one of them a distinct `name:`\)/,
    );

    const noAgent = await runCli(['run', twoSetSuite(tempDir(), 'suite: s\ntask_sets:\n  - path: alpha/tasks.yaml\n').suiteFile, '--out', join(dir, 'state')]);
    expect(noAgent.status).toBe(2);
    expect(noAgent.stderr).toMatch(
      /no agent given \(fix: add --agent NAME, .*, or an `agents:` list to the suite; to check the tasks first: crucible run \S+ --agent oracle\)/,
    );
  });
});
