import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummaryFile } from '../../src/engine/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { CLI, runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { tinyTaskSet } from './fixtures.js';

const tempDir = useTempDirs();

/** The built CLI on the tiny task set, unsandboxed (the reference agents may run without bwrap). */
function run(dir: string, attempts: number, ...args: string[]) {
  return runCli(['run', 'tasks.yaml', '--sandbox', 'local', ...args], { cwd: dir, attempts });
}

describe('crucible run → history → show → compare', () => {
  let dir: string;
  let first: RunSummaryFile;
  let firstStdout: string;
  let firstStderr: string;

  beforeAll(async () => {
    // Not tempDir(): that one is removed after each test, and these tests share the run.
    dir = mkdtempSync(join(tmpdir(), 'crucible-cli-'));
    tinyTaskSet(dir, 6);
    const result = await run(dir, 24, '--agent', 'oracle', '--agent', 'nop', '--runs', '2', '--concurrency', '2', '--json');
    expect(result.status, result.stderr).toBe(1);
    first = JSON.parse(result.stdout) as RunSummaryFile;
    firstStdout = result.stdout;
    firstStderr = result.stderr;
  }, attemptBudget(24));
  afterAll(async () => rmSync(dir, { recursive: true, force: true }));

  it('prints per-agent pass rates with n and interval, pass@1/pass@k and the paired verdict', async () => {
    expect(first.planned).toBe(24);
    expect(first.executed).toBe(24);
    expect(first.stats.comparisons[0]).toMatchObject({ a: 'nop', b: 'oracle', verdict: 'B better', tasks: 6 });
    // Under --json the human report goes to stderr, the summary alone to stdout.
    expect(firstStdout.trimStart().startsWith('{')).toBe(true);
    expect(firstStderr).toMatch(/agent +pass rate +95% interval +n +tasks +pass@1 +pass@2 +errors +causes/);
    expect(firstStderr).toMatch(/oracle +100\.0% +\[75\.8%, 100\.0%\]\* +12 +6 +100\.0% +100\.0% +0 +passed 12/);
    expect(firstStderr).toMatch(/nop +oracle +6 +−100\.0 pts .* 0\.031 +B better \(oracle\)/);
    // Without a TTY (CI=true) progress is plain lines, and NO_COLOR leaves no escape codes.
    expect(firstStderr).toMatch(/^\[\d+\/24\] (PASS|FAIL) +t\d (oracle|nop) #\d/m);
    expect(firstStderr).not.toContain('\u001b[');
  });

  it('lists the attempts in history, as JSON and CSV, filtered', async () => {
    const json = await runCli(['history', '--json'], { cwd: dir });
    expect(json.status).toBe(0);
    const rows = JSON.parse(json.stdout) as Array<{ runId: string; agent: string }>;
    expect(rows).toHaveLength(24);
    expect(new Set(rows.map((r) => r.runId))).toEqual(new Set([first.runId]));

    const oracle = await runCli(['history', '--agent', 'oracle', '--task', 't1', '--csv'], { cwd: dir });
    const lines = oracle.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^attemptId,runId,taskId,/);
    expect(lines).toHaveLength(3);

    const limited = await runCli(['history', '--limit', '5'], { cwd: dir });
    expect(limited.stdout.trim().split('\n')).toHaveLength(6);

    const runs = await runCli(['history', '--runs'], { cwd: dir });
    expect(runs.stdout).toMatch(new RegExp(`${first.runId} .* oracle, nop +24/24 +12 +12 +0 +complete`));
  });

  it('shows a run by id prefix and an attempt with its evidence', async () => {
    const shown = await runCli(['show', first.runId.slice(0, 17)], { cwd: dir });
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`run ${first.runId}`);
    expect(shown.stdout).toMatch(/B better \(oracle\)/);

    const attemptId = first.attempts.find((a) => a.agent === 'nop')?.attemptId ?? '';
    const attempt = await runCli(['show', attemptId], { cwd: dir });
    expect(attempt.status, attempt.stderr).toBe(0);
    expect(attempt.stdout).toContain(`attempt ${attemptId}`);
    expect(attempt.stdout).toMatch(/FAIL no_changes/);
    expect(attempt.stdout).toMatch(/✗ F2P check::fixed \(failed\)/);
    // A duration as formatDuration writes it: 850ms on a fast machine, 1.2s on a loaded one.
    expect(attempt.stdout).toMatch(/prepare \d+(ms|\.\ds|m\d\ds)/);
  });

  it(
    'compares two runs cell by cell with a paired verdict',
    async () => {
      const second = await run(dir, 6, '--agent', 'nop', '--runs', '2', '--tag', 'even', '--json');
      const b = JSON.parse(second.stdout) as RunSummaryFile;
      expect(b.planned).toBe(6);
      const compared = await runCli(['compare', first.runId, b.runId], { cwd: dir });
      expect(compared.status, compared.stderr).toBe(0);
      expect(compared.stdout).toMatch(/oracle +t1 +100\.0% \(2\/2\) +- +- +only in A/);
      expect(compared.stdout).toMatch(/nop +t1 +0\.0% \(0\/2\) +0\.0% \(0\/2\) +0\.0 pts +same/);
      expect(compared.stdout).toMatch(/nop +nop +3 .* not separated/);
      expect(compared.stdout).toContain('no cell got worse');
    },
    attemptBudget(6),
  );

  it('rejects bad input with one line and exit code 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['run', 'tasks.yaml', '--agent', 'nop', '--runs', '0'], /--runs 0: expected a whole number ≥ 1/],
      [['run', 'tasks.yaml', '--agent', 'nop', '--concurrency', 'x'], /--concurrency x: expected a whole number/],
      [['run', 'tasks.yaml', '--agent', 'nop', '--force'], /--force only applies with --resume/],
      [['run', 'tasks.yaml', '--agent', 'nop', '--tag', 'python'], /--tag python: no task in tasks.yaml matches/],
      [['resume', 'nope'], /run nope: no such run/],
      [['show', 'zzz'], /zzz: no run or attempt with this id or prefix/],
      [['history', '--since', 'yesterday'], /since must be an ISO timestamp or a duration/],
      [['compare', first.runId, first.runId], /are the same run/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, { cwd: dir });
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('SIGKILL in the middle of a real run, then crucible resume', () => {
  it(
    'ends with exactly tasks × agents × runs attempts',
    async () => {
      const dir = tempDir();
      tinyTaskSet(dir, 2);
      // Killed as soon as the third attempt has been reported finished.
      const killed = await new Promise<string>((done) => {
        const child = spawn(
          process.execPath,
          [CLI, 'run', 'tasks.yaml', '--sandbox', 'local', '--agent', 'oracle', '--agent', 'nop', '--runs', '3', '--concurrency', '2'],
          {
            cwd: dir,
            env: { ...process.env, NO_COLOR: '1', CI: 'true' },
          },
        );
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (/^\[3\/12\]/m.test(stderr)) child.kill('SIGKILL');
        });
        child.on('exit', (_code, signal) => done(`${signal}\n${stderr}`));
      });
      expect(killed.startsWith('SIGKILL')).toBe(true);
      const runId = /^run (\S+):/m.exec(killed)?.[1] ?? '';

      const resumed = await runCli(['resume', runId.slice(0, 17), '--json'], { cwd: dir, attempts: 12 });
      expect(resumed.status, resumed.stderr).toBe(1);
      const summary = JSON.parse(resumed.stdout) as RunSummaryFile;
      expect(summary.planned).toBe(12);
      expect(summary.executed).toBe(12);
      expect(summary.reused).toBeGreaterThanOrEqual(3);
      expect(new Set(summary.attempts.map((a) => a.attemptId)).size).toBe(12);
      expect(readdirSync(join(dir, '.crucible', 'runs', runId, 'attempts'))).toHaveLength(12);
      const history = JSON.parse((await runCli(['history', '--run', runId, '--json'], { cwd: dir })).stdout) as unknown[];
      expect(history).toHaveLength(12);
    },
    attemptBudget(12 + 12),
  );
});
