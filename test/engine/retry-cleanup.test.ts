import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statfsSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { executeRun, readCheckpoint, type AttemptRunner, type RunStartInfo } from '../../src/engine/index.js';
import { FULL_DISK_MARGIN_BYTES } from '../../src/engine/disk-full.js';
import { EXIT_DISK_FULL, StateDirError } from '../../src/core/errors.js';
import { openHistory } from '../../src/infra/store/index.js';
import type { AttemptPlan, Cause } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';
import { fakeRunOptions } from './helpers/run-options.js';
import { defaultCause, fakeRunner } from './helpers/fake-run.mjs';

const tempDir = useTempDirs();
const children: ChildProcess[] = [];
const mounts: string[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const at of mounts.splice(0)) spawnSync('umount', ['-l', at]);
});

const options = fakeRunOptions;

function historyRows(dir: string, runId: string): Array<{ attemptId: string; verdict: string }> {
  const history = openHistory(join(dir, '.crucible', 'history.db'), { readonly: true });
  try {
    return history.listAttempts({ runId, limit: 100 }).items;
  } finally {
    history.close();
  }
}

/** `good`'s second trials end as harness errors (a sandbox that would not start, say). */
const flaky = (plan: AttemptPlan): Cause => (plan.agent === 'good' && plan.trial === 1 ? 'harness_error' : defaultCause(plan));

describe('resume --retry-errors', () => {
  it('reruns only the harness errors and replaces their checkpoint line, directory and history row', async () => {
    const dir = tempDir();
    const first = await executeRun(options(dir, { runAttempt: fakeRunner({ causeOf: flaky }) }));
    expect(first.summary.counts).toEqual({ PASS: 3, FAIL: 6, ERROR: 3 });
    const runId = first.summary.runId;
    const errored = first.attempts.filter((a) => a.verdict === 'ERROR').map((a) => a.attemptId);

    // Without the flag a resume keeps them: an error is a recorded outcome.
    const kept = await executeRun(options(dir, { resume: { runId } }));
    expect(kept.summary.reused).toBe(12);
    expect(kept.summary.counts.ERROR).toBe(3);

    const started: string[] = [];
    let info: RunStartInfo | undefined;
    const retried = await executeRun(
      options(dir, {
        resume: { runId, retryErrors: true },
        runAttempt: fakeRunner({ onStart: (plan: AttemptPlan) => started.push(plan.attemptId) }),
        observer: { onStart: (i) => (info = i) },
      }),
    );
    expect(started.sort()).toEqual([...errored].sort());
    expect(info?.rerun.map((r) => r.attemptId).sort()).toEqual([...errored].sort());
    expect(retried.summary).toMatchObject({ reused: 9, executed: 12, counts: { PASS: 6, FAIL: 6, ERROR: 0 } });

    const { entries } = await readCheckpoint(first.runDir);
    expect(entries).toHaveLength(12);
    expect(entries.filter((e) => e.verdict === 'ERROR')).toEqual([]);
    const rows = historyRows(dir, runId);
    expect(rows).toHaveLength(12);
    expect(rows.filter((r) => r.verdict === 'ERROR')).toEqual([]);
  });

  it('removes the errored record even when the rerun is cut off, so nothing counts it twice', async () => {
    const dir = tempDir();
    const first = await executeRun(options(dir, { runAttempt: fakeRunner({ causeOf: flaky }) }));
    const runId = first.summary.runId;
    const stop = new AbortController();
    stop.abort();
    const cut = await executeRun(options(dir, { resume: { runId, retryErrors: true }, signal: stop.signal }));
    expect(cut.summary.ended).toBe('interrupted');
    const { entries } = await readCheckpoint(first.runDir);
    expect(entries).toHaveLength(9);
    expect(historyRows(dir, runId)).toHaveLength(9);
    for (const a of first.attempts.filter((x) => x.verdict === 'ERROR')) expect(existsSync(join(first.runDir, 'attempts', a.attemptId))).toBe(false);
  });
});

/** Mounts a small tmpfs as the state directory (this machine and CI run as root): a disk that can really fill up. */
function stateDirOnTmpfs(dir: string): string {
  const stateDir = join(dir, '.crucible');
  mkdirSync(stateDir, { recursive: true });
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', stateDir], { encoding: 'utf8' });
  if (mounted.status !== 0) throw new Error(`this test mounts a tmpfs and needs root: ${mounted.stderr}`);
  mounts.push(stateDir);
  return stateDir;
}

/** Fills the file system of `at` until less than FULL_DISK_MARGIN_BYTES / 2 is left: full by statfs, with room for the run's own small writes. */
function fillNearly(at: string): void {
  const fs = statfsSync(at);
  const size = fs.bfree * fs.bsize - FULL_DISK_MARGIN_BYTES / 2;
  writeFileSync(join(at, 'filler'), Buffer.alloc(size));
}

describe('a full disk during a run', () => {
  it.skipIf(process.getuid?.() !== 0)(
    'records the attempt that hit it as a harness error, starts nothing more, and ends with StateDirError (exit 75)',
    async () => {
      const dir = tempDir();
      const stateDir = stateDirOnTmpfs(dir);
      const base = fakeRunner();
      const started: number[] = [];
      const runner: AttemptRunner = async (plan, task, agent, env) => {
        started.push(plan.index);
        if (plan.index === 3) {
          fillNearly(stateDir);
          throw Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: 'ENOSPC', syscall: 'write' });
        }
        return base(plan, task, agent, env);
      };
      const error = await executeRun(options(dir, { runAttempt: runner, concurrency: 1, runId: 'disk-full' })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateDirError);
      expect((error as StateDirError).exitCode).toBe(EXIT_DISK_FULL);
      expect((error as Error).message).toMatch(
        /^no space left on device writing .*runs\/disk-full\/attempts\/task-0\.bad\.1\.\w+ \(fix: free space on the disk of .*, then `crucible resume disk-full --retry-errors`\)$/,
      );
      expect(started).toEqual([0, 1, 2, 3]);
      const runDir = join(stateDir, 'runs', 'disk-full');
      const { entries } = await readCheckpoint(runDir);
      expect(entries.map((e) => [e.index, e.verdict, e.cause])).toEqual([
        [0, 'PASS', 'passed'],
        [1, 'PASS', 'passed'],
        [2, 'FAIL', 'tests_failed'],
        [3, 'ERROR', 'harness_error'],
      ]);

      rmSync(join(stateDir, 'filler'));
      const resumed = await executeRun(options(dir, { resume: { runId: 'disk-full', retryErrors: true } }));
      expect(resumed.summary).toMatchObject({ reused: 3, executed: 12, counts: { PASS: 6, FAIL: 6, ERROR: 0 } });
    },
  );

  it("an ENOSPC on a disk with room (inotify's watch limit, a message quoting a file name) is that attempt's harness error only: the run goes on", async () => {
    const dir = tempDir();
    const base = fakeRunner();
    const runner: AttemptRunner = async (plan, task, agent, env) => {
      if (plan.index === 3) throw Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: 'ENOSPC', syscall: 'write' });
      return base(plan, task, agent, env);
    };
    const outcome = await executeRun(options(dir, { runAttempt: runner, concurrency: 1, runId: 'room-left' }));
    expect(outcome.summary).toMatchObject({ planned: 12, executed: 12, stoppedEarly: false, counts: { PASS: 6, FAIL: 5, ERROR: 1 } });
    expect(outcome.attempts.find((a) => a.index === 3)).toMatchObject({ verdict: 'ERROR', cause: 'harness_error' });
  });
});

describe('a state directory deleted during a run', () => {
  it('stops the run with StateDirError (exit 2) instead of writing on into a half-recreated tree', async () => {
    const dir = tempDir();
    const base = fakeRunner();
    const started: number[] = [];
    const runner: AttemptRunner = async (plan, task, agent, env) => {
      started.push(plan.index);
      if (plan.index === 2) rmSync(join(dir, '.crucible'), { recursive: true, force: true });
      return base(plan, task, agent, env);
    };
    const error = await executeRun(options(dir, { runAttempt: runner, concurrency: 1 })).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'StateDirError', fault: 'vanished', exitCode: 2 });
    expect((error as Error).message).toMatch(/^the state directory .*\.crucible disappeared while the run was working in it/);
    expect(started).toEqual([0, 1, 2]);
  });
});

describe('resume cleans up what a killed run left', () => {
  it("removes temporary files, unfinished attempts and dead processes' staging directories, and nothing else", async () => {
    const dir = tempDir();
    const first = await executeRun(options(dir, { settings: { sandbox: 'local', keepWorkspace: true } }));
    const { runDir } = first;
    const state = join(dir, '.crucible');
    const [finished, unfinished] = first.attempts.map((a) => a.attemptId);
    // Killed before the unfinished attempt's checkpoint line: its line is gone, its scratch trees are not.
    const { entries } = await readCheckpoint(runDir);
    writeFileSync(
      join(runDir, 'checkpoint.jsonl'),
      entries
        .filter((e) => e.attemptId !== unfinished)
        .map((e) => `${JSON.stringify(e)}\n`)
        .join(''),
    );
    for (const d of ['workspace', 'agent-workspace', 'pristine']) mkdirSync(join(runDir, 'attempts', unfinished ?? '', d), { recursive: true });
    // --keep-workspace leaves a finished attempt's scratch tree on purpose.
    mkdirSync(join(runDir, 'attempts', finished ?? '', 'workspace'));
    writeFileSync(join(runDir, 'attempts', finished ?? '', 'attempt.json.4242.tmp'), '{');
    writeFileSync(join(runDir, 'summary.json.4242.tmp'), '{');
    const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.push(sleeper);
    const live = sleeper.pid ?? 0;
    for (const name of ['.20990101-000000-dead.999999999.staging', `.20990101-000000-live.${live}.staging`])
      mkdirSync(join(state, 'runs', name, 'attempts'), { recursive: true });
    for (const name of ['repo-abc.git.tmp-999999999-1700000000000', `repo-def.git.tmp-${live}-1700000000000`])
      mkdirSync(join(state, 'cache', 'git', name, 'objects'), { recursive: true });
    // Pids that live but did not make them (a reused pid: in a container every run is pid 1): the
    // directories were last written long before those processes started.
    const old = new Date('2001-01-01T00:00:00Z');
    for (const name of [`.20990101-000000-reused.${process.pid}.staging`, `.20990101-000000-older.${live}.staging`]) {
      mkdirSync(join(state, 'runs', name));
      utimesSync(join(state, 'runs', name), old, old);
    }
    // Another run's distributed fetch, of a dead process.
    mkdirSync(join(state, 'runs', '20990101-000000-other', 'attempts', '.t.oracle.0.x.999999999.incoming'), { recursive: true });

    const sawScratch: boolean[] = [];
    const resumed = await executeRun(
      options(dir, {
        settings: { sandbox: 'local', keepWorkspace: true },
        resume: { runId: first.summary.runId },
        runAttempt: fakeRunner({ onStart: (plan: AttemptPlan) => sawScratch.push(existsSync(join(runDir, 'attempts', plan.attemptId, 'pristine'))) }),
      }),
    );
    expect(resumed.summary).toMatchObject({ reused: 11, executed: 12 });
    expect(sawScratch).toEqual([false]);
    expect(existsSync(join(runDir, 'summary.json.4242.tmp'))).toBe(false);
    expect(existsSync(join(runDir, 'attempts', finished ?? '', 'attempt.json.4242.tmp'))).toBe(false);
    expect(existsSync(join(runDir, 'attempts', finished ?? '', 'workspace'))).toBe(true);
    expect(readdirSync(join(state, 'runs')).filter((n) => n.startsWith('.'))).toEqual([`.20990101-000000-live.${live}.staging`]);
    expect(readdirSync(join(state, 'cache', 'git'))).toEqual([`repo-def.git.tmp-${live}-1700000000000`]);
    expect(readdirSync(join(state, 'runs', '20990101-000000-other', 'attempts'))).toEqual([]);
  });
});
