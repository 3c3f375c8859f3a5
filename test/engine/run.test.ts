import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { executeRun, readCheckpoint, type RunOptions, type RunSummaryFile } from '../../src/engine/index.js';
import { openHistory } from '../../src/infra/store/index.js';
import type { AttemptPlan } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';
import { fakeRunOptions } from './helpers/run-options.js';
import { withFlagNames } from '../../src/cli/option-flags.js';
import { fakeRunner, fakeTasks } from './helpers/fake-run.mjs';

const tempDir = useTempDirs();

function options(dir: string, overrides: Partial<RunOptions> = {}): RunOptions {
  return fakeRunOptions(dir, { concurrency: 3, runAttempt: fakeRunner({ delayMs: [0, 8] }), ...overrides });
}

function summaryOf(runDir: string): RunSummaryFile {
  return JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as RunSummaryFile;
}

describe('executeRun', () => {
  it('runs tasks × agents × trials and records them in plan order whatever the completion order', async () => {
    const dir = tempDir();
    const { summary, runDir, attempts } = await executeRun(options(dir));
    expect(summary.planned).toBe(12);
    expect(summary.executed).toBe(12);
    expect(summary.ended).toBe('completed');
    expect(attempts.map((a) => a.index)).toEqual([...Array(12).keys()]);
    expect(summary.attempts.map((a) => [a.taskId, a.agent, a.trial]).slice(0, 4)).toEqual([
      ['task-0', 'good', 0],
      ['task-0', 'good', 1],
      ['task-0', 'bad', 0],
      ['task-0', 'bad', 1],
    ]);
    expect(summary.counts).toEqual({ PASS: 6, FAIL: 6, ERROR: 0 });
    expect(summaryOf(runDir)).toEqual(summary);

    const { entries } = await readCheckpoint(runDir);
    expect(new Set(entries.map((e) => e.attemptId)).size).toBe(12);

    const history = openHistory(join(dir, '.crucible', 'history.db'), { readonly: true });
    try {
      expect(history.countAttempts({ runId: summary.runId })).toBe(12);
      const run = history.getRun(summary.runId);
      expect(run?.finishedAt).not.toBeNull();
      expect((run?.stats as { schemaVersion: number }).schemaVersion).toBe(1);
      expect(history.listAttempts({ runId: summary.runId, limit: 3 }).items[0]?.repoKey).toBe('dir:repo-0');
    } finally {
      history.close();
    }
  });

  it('puts statistics in summary.json: pass rates with intervals, pass@k and the paired verdict', async () => {
    const dir = tempDir();
    const { summary } = await executeRun(options(dir, { tasks: fakeTasks(dir, 6), trials: 3 }));
    const stats = summary.stats;
    expect(stats.ks).toEqual([1, 3]);
    const good = stats.agents.find((a) => a.agent === 'good');
    // All-pass tasks collapse the task bootstrap to [1, 1]; the Wilson floor keeps an honest width.
    expect(good?.passRate).toMatchObject({ rate: 1, n: 18, tasks: 6, floor: 'wilson' });
    expect(good?.passRate?.low).toBeCloseTo(0.8241, 3);
    expect(stats.comparisons[0]).toMatchObject({ a: 'bad', b: 'good', verdict: 'B better', tasks: 6 });
    expect(stats.repos.profiles.map((p) => p.repo)).toEqual(['dir:repo-0', 'dir:repo-1']);
  });

  it('turns a runner that throws into a harness_error row without cancelling the others', async () => {
    const dir = tempDir();
    const runAttempt = fakeRunner({ causeOf: (p) => (p.taskId === 'task-1' && p.agent === 'good' ? 'throw' : 'passed') });
    const { summary, runDir } = await executeRun(options(dir, { runAttempt }));
    expect(summary.executed).toBe(12);
    const crashed = summary.attempts.filter((a) => a.cause === 'harness_error');
    expect(crashed).toHaveLength(2);
    expect(crashed[0]?.message).toMatch(/^attempt crashed: runner blew up/);
    // The engine writes attempt.json for it, so the checkpoint can vouch for it.
    expect(existsSync(join(runDir, 'attempts', crashed[0]?.attemptId ?? '', 'attempt.json'))).toBe(true);
    const good = summary.stats.agents.find((a) => a.agent === 'good');
    expect(good?.harnessErrors.count).toBe(2);
    expect(good?.scored).toBe(4);
  });

  it('stops scheduling after the first failure with --fail-fast and says so', async () => {
    const dir = tempDir();
    const { summary } = await executeRun(options(dir, { concurrency: 1, failFast: true }));
    // Plan order: task-0 good 0, good 1, bad 0 → fails.
    expect(summary.executed).toBe(3);
    expect(summary.planned).toBe(12);
    expect(summary.stoppedEarly).toBe(true);
    expect(summary.ended).toBe('fail-fast');
    expect(summary.failedFast).toMatchObject({ taskId: 'task-0', agent: 'bad', trial: 0, cause: 'tests_failed' });
  });

  it('on interrupt finishes running attempts within the grace period, drops cut-off ones, and resumes the rest', async () => {
    const dir = tempDir();
    const stop = new AbortController();
    const started: AttemptPlan[] = [];
    const discarded: string[] = [];
    const first = await executeRun(
      options(dir, {
        concurrency: 2,
        graceMs: 30,
        signal: stop.signal,
        // The third attempt to start stops the run; the two in flight never finish within the grace period.
        runAttempt: fakeRunner({ delayMs: [2000, 2000], onStart: (p) => started.push(p) === 2 && setTimeout(() => stop.abort(), 5) }),
        observer: { onAttemptDiscarded: (p) => discarded.push(p.attemptId) },
      }),
    );
    expect(first.summary.ended).toBe('interrupted');
    expect(first.summary.executed).toBe(0);
    expect(discarded).toHaveLength(2);
    expect(started).toHaveLength(2);

    const second = await executeRun(options(dir, { resume: { runId: first.summary.runId } }));
    expect(second.summary.executed).toBe(12);
    expect(second.summary.reused).toBe(0);
    expect(second.summary.ended).toBe('completed');
  });

  it('resumes by reusing checkpointed attempts and rerunning ones whose attempt.json changed', async () => {
    const dir = tempDir();
    const first = await executeRun(options(dir, { concurrency: 1, failFast: true }));
    const { runId } = first.summary;
    const tampered = first.summary.attempts[0]?.attemptId ?? '';
    writeFileSync(join(first.runDir, 'attempts', tampered, 'attempt.json'), '{"attemptId":"edited"}');

    const ran: string[] = [];
    const warnings: string[] = [];
    let rerun: string[] = [];
    const second = await executeRun(
      options(dir, {
        resume: { runId },
        runAttempt: fakeRunner({ onStart: (p) => ran.push(p.attemptId) }),
        observer: { onStart: (info) => (rerun = info.rerun.map((r) => r.reason)), onWarning: (m) => warnings.push(m) },
      }),
    );
    expect(rerun).toEqual(['attempt.json changed after it was recorded']);
    expect(second.summary.reused).toBe(2);
    expect(ran).toHaveLength(10);
    expect(ran).toContain(tampered);
    expect(second.summary.executed).toBe(12);
    expect(new Set(second.summary.attempts.map((a) => a.attemptId)).size).toBe(12);
    const { entries } = await readCheckpoint(second.runDir);
    expect(entries).toHaveLength(12);
    expect(readdirSync(join(second.runDir, 'attempts'))).toHaveLength(12);
    const plan = JSON.parse(readFileSync(join(second.runDir, 'plan.json'), 'utf8')) as { resumes: unknown[] };
    expect(plan.resumes).toMatchObject([{ forced: false, reused: 2, superseded: 0 }]);
    expect(warnings).toEqual([]);
  });

  it('refuses to resume with a changed config unless forced, then reruns only what changed', async () => {
    const dir = tempDir();
    const first = await executeRun(options(dir));
    const { runId } = first.summary;
    const changed = fakeTasks(dir, 3);
    (changed[1] as { instruction: string }).instruction = 'a different instruction';

    await expect(executeRun(options(dir, { tasks: changed, resume: { runId } }))).rejects.toThrow(
      /^resume\.runId \S+: was planned with another config \(task task-1 changed\) \(fix: add resume\.force/,
    );
    await expect(withFlagNames(() => executeRun(options(dir, { tasks: changed, resume: { runId } })))).rejects.toThrow(
      /^run \S+: was planned with another config \(task task-1 changed\) \(fix: add --force/,
    );
    await expect(executeRun(options(dir, { trials: 3, resume: { runId } }))).rejects.toThrow(/runs 2 → 3/);
    await expect(executeRun(options(dir, { settings: { sandbox: 'bwrap' }, resume: { runId } }))).rejects.toThrow(/sandbox local → bwrap/);
    // Keeping the workspace changes nothing an attempt measures.
    const kept = await executeRun(options(dir, { settings: { sandbox: 'local', keepWorkspace: true }, resume: { runId } }));
    expect(kept.summary.reused).toBe(12);

    const ran: string[] = [];
    const forced = await executeRun(
      options(dir, { tasks: changed, resume: { runId, force: true }, runAttempt: fakeRunner({ onStart: (p) => ran.push(p.taskId) }) }),
    );
    expect(ran).toEqual(['task-1', 'task-1', 'task-1', 'task-1']);
    expect(forced.summary.reused).toBe(8);
    expect(forced.summary.executed).toBe(12);
    expect(readdirSync(join(forced.runDir, 'attempts'))).toHaveLength(12);
    const history = openHistory(join(dir, '.crucible', 'history.db'), { readonly: true });
    try {
      expect(history.countAttempts({ runId })).toBe(12);
    } finally {
      history.close();
    }
  });

  it('keeps model options in the plan, hashes the defining ones, and never writes the environment', async () => {
    const dir = tempDir();
    const models = { mode: 'live' as const, limits: { maxTurns: 10 }, env: { OPENAI_API_KEY: 'sk-secret' } };
    const first = await executeRun(options(dir, { models }));
    const plan = readFileSync(join(first.runDir, 'plan.json'), 'utf8');
    expect(JSON.parse(plan)).toMatchObject({ models: { mode: 'live', limits: { maxTurns: 10 } } });
    expect(plan).not.toContain('sk-secret');
    const { runId } = first.summary;
    await expect(executeRun(options(dir, { models: { ...models, limits: { maxTurns: 20 } }, resume: { runId } }))).rejects.toThrow(
      /models \{"limits":\{"maxTurns":10\}\} → \{"limits":\{"maxTurns":20\}\}/,
    );
    // Replaying instead of calling the provider measures the same attempts.
    const replayed = await executeRun(options(dir, { models: { ...models, mode: 'replay' }, resume: { runId } }));
    expect(replayed.summary.reused).toBe(12);
  });

  it('refuses a second process on the same run, and takes over the lock of a dead one', async () => {
    const dir = tempDir();
    const first = await executeRun(options(dir));
    const lock = join(first.runDir, 'run.lock');
    const { hostname } = await import('node:os');
    writeFileSync(lock, `${process.ppid} ${hostname()}\n`);
    await expect(executeRun(options(dir, { resume: { runId: first.summary.runId } }))).rejects.toThrow(/is in use by process/);
    writeFileSync(lock, `999999999 ${hostname()}\n`);
    const again = await executeRun(options(dir, { resume: { runId: first.summary.runId } }));
    expect(again.summary.reused).toBe(12);
    expect(existsSync(lock)).toBe(false);
  });

  it('plans fewer trials for some agents and leaves out (task, agent) pairs when asked, and records the kind', async () => {
    const dir = tempDir();
    const { summary, runDir, attempts } = await executeRun(
      options(dir, { kind: 'validate', trials: 3, agentTrials: { bad: 1 }, only: (taskId, agent) => !(taskId === 'task-2' && agent === 'good') }),
    );
    // task-0, task-1: good ×3 + bad ×1; task-2: bad ×1.
    expect(summary.planned).toBe(9);
    expect(attempts.map((a) => a.index)).toEqual([...Array(9).keys()]);
    expect(attempts.filter((a) => a.agent === 'bad').map((a) => a.trial)).toEqual([0, 0, 0]);
    expect(runDir).toBe(join(dir, '.crucible', 'validate', summary.runId));
    expect(JSON.parse(readFileSync(join(runDir, 'plan.json'), 'utf8'))).toMatchObject({ kind: 'validate' });
  });

  it("rejects bad input before running anything, naming the option field (flags are the CLI's)", async () => {
    const dir = tempDir();
    await expect(executeRun(options(dir, { concurrency: 0 }))).rejects.toThrow(/^concurrency 0: must be a whole number/);
    await expect(executeRun(options(dir, { trials: 0 }))).rejects.toMatchObject({ options: [{ field: 'trials', value: '0' }] });
    await expect(executeRun(options(dir, { agents: ['good', 'good'] }))).rejects.toThrow(
      'agents good: given twice (fix: list each agent once; use trials for repeats)',
    );
    await expect(withFlagNames(() => executeRun(options(dir, { agents: ['good', 'good'] })))).rejects.toThrow(
      '--agent good: given twice (fix: list each agent once; use --runs for repeats)',
    );
    await expect(executeRun(options(dir, { resume: { runId: 'nope' } }))).rejects.toThrow(/nothing to resume/);
  });
});
