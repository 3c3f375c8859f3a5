import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummaryFile } from '../../src/engine/index.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { tinyTaskSet } from './fixtures.js';

/**
 * A full disk and a read-only state directory, for real: the state directory is a small tmpfs
 * (CI runs as root, like this machine), filled or remounted read-only. No fault is simulated.
 */
const mounts: string[] = [];
let dir: string;

function mountTmpfs(at: string, size: string): void {
  mkdirSync(at, { recursive: true });
  const result = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', at], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`these tests mount a tmpfs and need root: mount failed: ${result.stderr}`);
  mounts.push(at);
}

function remountReadOnly(at: string): void {
  const result = spawnSync('mount', ['-o', 'remount,ro', at], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`remount read-only failed: ${result.stderr}`);
}

/** Fills the filesystem of `at` to the last byte. */
function fill(at: string): void {
  spawnSync('sh', ['-c', `head -c 1G /dev/zero > ${at}/filler`]);
}

function run(...args: string[]): Promise<CliResult> {
  return runCli(['run', 'tasks.yaml', '--sandbox', 'local', ...args], { cwd: dir });
}

/** The one-line error rule: exactly one `error` line, no stack trace, never "this is a bug". */
function expectOneLine(result: CliResult): string {
  const errors = result.stderr.split('\n').filter((line) => line.startsWith('error'));
  expect(errors, result.stderr).toHaveLength(1);
  expect(result.stderr).not.toMatch(/this is a bug|crucible failed|^\s+at /m);
  return errors[0] ?? '';
}

function verdicts(summary: RunSummaryFile): Record<string, string> {
  return Object.fromEntries(summary.attempts.map((a) => [`${a.taskId} ${a.agent} ${a.trial}`, `${a.verdict} ${a.cause}`]));
}

function checkpointRows(runDir: string): Array<{ attemptId: string; verdict: string; cause: string }> {
  return readFileSync(join(runDir, 'checkpoint.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { attemptId: string; verdict: string; cause: string });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crucible-faults-'));
  tinyTaskSet(dir, 4);
  // t3's setup fills the state directory's disk once, on its second run (the run's preflight is the
  // first), then succeeds: the harness's next write (git, cp, attempt.json) meets a full disk, as
  // it would on a real machine.
  const file = join(dir, 'tasks.yaml');
  const flag = join(dir, 'fill-once');
  const setup = `if [ -e ${flag} ]; then if [ "$(cat ${flag})" = 2 ]; then echo 1 > ${flag}; else rm -f ${flag}; head -c 1G /dev/zero > ${join(dir, 'full', 'filler')}; fi; fi; true`;
  writeFileSync(file, readFileSync(file, 'utf8').replace('  - id: t3\n', `  - id: t3\n    setup: ['${setup}']\n`));
});

afterAll(async () => {
  for (const at of mounts.splice(0).reverse()) spawnSync('umount', ['-l', at]);
  rmSync(dir, { recursive: true, force: true });
});

describe('a full disk', () => {
  it('stops the run with one line (exit 75), keeps what finished, and resume --retry-errors gives the verdicts of a clean run', async () => {
    const clean = await run('--agent', 'oracle', '--agent', 'nop', '--concurrency', '2', '--out', 'clean', '--json');
    expect(clean.status, clean.stderr).toBe(1);
    const cleanSummary = JSON.parse(clean.stdout) as RunSummaryFile;

    mountTmpfs(join(dir, 'full'), '16m');
    writeFileSync(join(dir, 'fill-once'), '2');
    // Setup must run per attempt (no prepared-tree reuse) for the disk to fill at the second run.
    const stopped = await run('--agent', 'oracle', '--agent', 'nop', '--concurrency', '1', '--out', 'full', '--no-prepare-cache');
    expect(stopped.status, stopped.stderr).toBe(75);
    const [runId = ''] = readdirSync(join(dir, 'full', 'runs'));
    const line = expectOneLine(stopped);
    expect(line).toContain(`no space left on device writing full/runs/${runId}/attempts/t3.oracle.0.`);
    expect(line).toContain(`then \`crucible resume ${runId} --retry-errors\``);

    // One attempt at a time: t1 and t2 finished, t3's first attempt is the harness's error, and
    // nothing started after it (the rest would only have failed one by one).
    const runDir = join(dir, 'full', 'runs', runId);
    const rows = checkpointRows(runDir);
    expect(rows.map((r) => r.attemptId.split('.').slice(0, 2).join(' '))).toEqual(['t1 oracle', 't1 nop', 't2 oracle', 't2 nop', 't3 oracle']);
    expect(rows.slice(0, 4).map((r) => r.verdict)).toEqual(['PASS', 'FAIL', 'PASS', 'FAIL']);
    expect(rows[4]).toMatchObject({ verdict: 'ERROR', cause: 'harness_error' });
    expect(readdirSync(join(runDir, 'attempts')).sort()).toEqual(rows.map((r) => r.attemptId).sort());

    // Space freed: the resume reruns the disk's victim and the rest, replacing the error's record.
    rmSync(join(dir, 'full', 'filler'));
    const resumed = await runCli(['resume', runId, '--out', 'full', '--retry-errors', '--json'], { cwd: dir });
    expect(resumed.status, resumed.stderr).toBe(1);
    const summary = JSON.parse(resumed.stdout) as RunSummaryFile;
    expect(summary.reused).toBe(4);
    expect(verdicts(summary)).toEqual(verdicts(cleanSummary));
    expect(summary.counts).toEqual(cleanSummary.counts);
    const after = checkpointRows(runDir);
    expect(after).toHaveLength(8);
    expect(new Set(after.map((r) => r.attemptId)).size).toBe(8);
    expect(readdirSync(join(runDir, 'attempts'))).toHaveLength(8);
    const history = await runCli(['history', '--run', runId, '--json', '--out', 'full'], { cwd: dir });
    const historyRows = JSON.parse(history.stdout) as Array<{ verdict: string }>;
    expect(historyRows).toHaveLength(8);
    expect(historyRows.filter((r) => r.verdict === 'ERROR')).toHaveLength(0);
  }, 240_000);

  it('refuses to start a run on a disk that is already full, leaving no half-made run', async () => {
    mountTmpfs(join(dir, 'tiny'), '1m');
    mkdirSync(join(dir, 'tiny', 'runs'));
    fill(join(dir, 'tiny'));
    const result = await run('--agent', 'nop', '--task', 't1', '--out', 'tiny');
    expect(result.status, result.stderr).toBe(75);
    expect(expectOneLine(result)).toMatch(/^error no space left on device writing tiny\/runs\/.* \(fix: free space on the disk of tiny, then run again\)$/);
    expect(readdirSync(join(dir, 'tiny', 'runs'))).toEqual([]);
  }, 120_000);
});

describe('resume --help', () => {
  it('explains --retry-errors and the exit codes of a full disk and an unusable state directory', async () => {
    const help = await runCli(['resume', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/--retry-errors +also rerun attempts that ended ERROR \(harness_error/);
    expect(help.stdout).toMatch(/replaces the errored attempt \(checkpoint line, attempt directory, history\s+row\)/);
    expect(help.stdout).toMatch(/75 disk full \(resume once there is space\)/);
  });
});

describe('a read-only state directory', () => {
  it('is named as such (exit 2), not as a run locked by another process', async () => {
    const at = join(dir, 'ro');
    mountTmpfs(at, '16m');
    const first = await run('--agent', 'nop', '--task', 't1', '--out', 'ro');
    expect(first.status, first.stderr).toBe(1);
    const [runId = ''] = readdirSync(join(at, 'runs'));
    // A lock left by a killed process: taking it over means deleting it, which a read-only disk refuses.
    writeFileSync(join(at, 'runs', runId, 'run.lock'), `999999999 ${hostname()}\n`);
    remountReadOnly(at);

    const resumed = await runCli(['resume', runId, '--out', 'ro'], { cwd: dir });
    expect(resumed.status, resumed.stderr).toBe(2);
    const line = expectOneLine(resumed);
    expect(line).toBe(
      `error the state directory ro is on a read-only file system (writing ro/runs/${runId}/run.lock) (fix: pass --out with a writable directory, or mount it read-write)`,
    );
    expect(resumed.stderr).not.toMatch(/locked|in use/);

    const fresh = await run('--agent', 'nop', '--task', 't1', '--out', 'ro');
    expect(fresh.status, fresh.stderr).toBe(2);
    expect(expectOneLine(fresh)).toMatch(/^error --out ro: on a read-only file system \(fix: /);
    expect(existsSync(join(at, 'runs', runId, 'plan.json'))).toBe(true);
  }, 120_000);
});
