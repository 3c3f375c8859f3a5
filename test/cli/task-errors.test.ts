import { describe, expect, it } from 'vitest';
import type { RunSummaryFile } from '../../src/engine/index.js';
import { openHistory } from '../../src/infra/store/index.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AttemptResult } from '../../src/core/types/index.js';
import { brokenTaskSet } from './fixtures.js';

const tempDir = useTempDirs();

describe('crucible run: broken tasks', () => {
  it('reports each broken task once, before any attempt, as a task error with the fix; no agent FAILs on it; exit 2', async () => {
    const dir = tempDir();
    const out = tempDir();
    const file = brokenTaskSet(dir);
    const result = await runCli([
      'run',
      file,
      '--agent',
      'oracle',
      '--agent',
      'nop',
      '--runs',
      '2',
      '--sandbox',
      'local',
      '--out',
      out,
      '--reporter',
      'json',
      '--json',
    ]);
    expect(result.status, result.stderr).toBe(2);
    const summary = JSON.parse(result.stdout) as RunSummaryFile;
    // 4 tasks × 2 agents × 2 runs: the sound task's 4 attempts ran, the broken ones' 12 did not.
    expect(summary.planned).toBe(16);
    expect(summary.counts).toEqual({ PASS: 2, FAIL: 2, ERROR: 12 });
    const broken = summary.attempts.filter((a) => a.taskId !== 't1');
    expect(new Set(broken.map((a) => `${a.verdict} ${a.cause}`))).toEqual(new Set(['ERROR task_error']));
    // Task errors stay out of every pass rate, like harness errors.
    expect(summary.stats.agents.find((a) => a.agent === 'oracle')?.passRate).toMatchObject({ rate: 1, n: 2 });

    // Each defect is printed once in the progress and once in the report, with the field and the fix.
    const typo =
      'tasks[1].tests.fail_to_pass[0]: "check::fixd" is not among the 2 tests the baseline run reports, nor among those the run with the oracle reports (fix: did you mean "check::fixed"?)';
    expect(result.stderr.split(typo)).toHaveLength(3);
    expect(result.stderr).toMatch(/tasks\[2\]\.oracle\.patch: does not apply to the repo after setup .*\(fix: make it a `git diff`/);
    expect(result.stderr.match(/tasks\[3\]\.repo\.git: file:\/\/\S+: cannot clone/g)).toHaveLength(2);
    expect(result.stderr).toContain('3 tasks are broken');
    expect(result.stderr).not.toMatch(/FAIL\s+(typo|stale-oracle|gone)/);
    // The baseline run the defect was found on stays in each task-error attempt's record, output and all.
    const typoAttempt = broken.find((a) => a.taskId === 'typo');
    const record = JSON.parse(
      readFileSync(join(out, 'runs', summary.runId, 'attempts', typoAttempt?.attemptId ?? '', 'attempt.json'), 'utf8'),
    ) as AttemptResult;
    expect(record.baselineTests).toMatchObject({ exitCode: 1, failToPass: { failing: [{ id: 'check::fixd', reason: 'missing' }] } });
    expect(record.baselineTests?.outputTail).toEqual(expect.any(String));

    const history = openHistory(join(out, 'history.db'), { readonly: true });
    try {
      expect(history.countAttempts({ runId: summary.runId, cause: 'task_error' })).toBe(12);
    } finally {
      history.close();
    }
  });
});

describe('crucible run: the engine names option fields, the CLI prints flags', () => {
  it('names --agent, --tag and --out in its one-line errors', async () => {
    const out = tempDir();
    const twice = await runCli(['run', 'examples/tasks.yaml', '--agent', 'nop', '--agent', 'nop', '--out', out]);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toContain('--agent nop: given twice (fix: list each agent once; use --runs for repeats)');
    const tag = await runCli(['run', 'examples/tasks.yaml', '--agent', 'nop', '--tag', 'nosuch', '--out', out]);
    expect(tag.status).toBe(2);
    expect(tag.stderr).toMatch(/--tag nosuch: no task in examples\/tasks\.yaml matches \(fix: the task set has tags: /);
    const resume = await runCli(['run', 'examples/tasks.yaml', '--agent', 'nop', '--resume', 'nope', '--out', out]);
    expect(resume.status).toBe(2);
    expect(resume.stderr).toContain('(fix: pass --out with the state directory the run used)');
  });
});
