import { describe, expect, it } from 'vitest';
import { buildBaseline, type BaselineFile, type RunAttemptOutcome, type RunOutcomes } from '../../src/features/baseline/index.js';
import { evaluateGate, pairAgents, versionMismatches } from '../../src/features/gate/index.js';
import type { Cause, Verdict } from '../../src/core/types/index.js';

const attempt = (agent: string, taskId: string, trial: number, verdict: Verdict, cause: Cause, failedChecks: string[] = []): RunAttemptOutcome => ({
  agent,
  taskId,
  taskVersion: '1',
  trial,
  verdict,
  cause,
  failedChecks,
});

const pass = (agent: string, taskId: string, trial = 0) => attempt(agent, taskId, trial, 'PASS', 'passed');
const fail = (agent: string, taskId: string, trial = 0, checks = ['tests']) => attempt(agent, taskId, trial, 'FAIL', 'tests_failed', checks);

function baselineOf(attempts: RunAttemptOutcome[], trials = 1): BaselineFile {
  const run = { runId: 'base-run', runDir: '/x/runs/base-run', plan: { taskSetPath: '/repo/tasks.yaml', trials }, attempts } as unknown as RunOutcomes;
  return buildBaseline(run, '/repo/baselines/main.json', new Date('2026-12-01T00:00:00Z'));
}

const defaults = { maxDrop: 0, maxRegressedTasks: 0 };
const ctx = { baselineFile: 'main.json', versionMismatches: [] };

describe('buildBaseline', () => {
  it('keys entries by task, version and agent identity, with the model and external agent version', () => {
    const info = { profile: 'claude-code', profileHash: 'abc', version: '2.0.1', model: 'claude-sonnet-4-5' };
    const b = baselineOf([{ ...pass('claude-code', 't1'), agentInfo: info }, pass('openai:gpt-4.1-mini', 't1'), pass('oracle', 't1')]);
    expect(b.taskSet).toBe('../tasks.yaml');
    expect(b.entries.map((e) => e.agent)).toEqual([
      { spec: 'claude-code', model: 'claude-sonnet-4-5', agentVersion: '2.0.1', profileHash: 'abc' },
      { spec: 'openai:gpt-4.1-mini', model: 'gpt-4.1-mini' },
      { spec: 'oracle' },
    ]);
  });
});

describe('evaluateGate', () => {
  it('leaves harness errors out, as every pass rate does: an errored attempt is no regression', () => {
    const base = baselineOf([pass('a', 't1'), pass('a', 't2')]);
    const run = { runId: 'new', attempts: [pass('a', 't1'), attempt('a', 't2', 0, 'ERROR', 'harness_error')] };
    const g = evaluateGate(base, run, defaults, ctx);
    expect(g.verdict).toBe('PASS');
    expect(g.agents[0]).toMatchObject({ passRate: 1, tasks: 1, regressedTasks: [] });
  });

  it('a task that got flaky is worse, not regressed; a new failed check is named', () => {
    const base = baselineOf([pass('a', 't1', 0), pass('a', 't1', 1), fail('a', 't2', 0, ['tests']), fail('a', 't2', 1, ['tests'])], 2);
    const run = { runId: 'new', attempts: [pass('a', 't1', 0), fail('a', 't1', 1, ['tests', 'forbidden_paths']), fail('a', 't2', 0), fail('a', 't2', 1)] };
    const g = evaluateGate(base, run, defaults, ctx);
    const [a] = g.agents;
    expect(a?.regressedTasks).toEqual([]);
    expect(a?.worseTasks.map((t) => t.taskId)).toEqual(['t1']);
    expect(a?.newlyFailedChecks).toEqual([expect.objectContaining({ taskId: 't1', newlyFailedChecks: ['forbidden_paths', 'tests'] })]);
    expect(g.verdict).toBe('PASS');
  });

  it('tasks only on one side are noted and not compared', () => {
    const base = baselineOf([pass('a', 't1'), pass('a', 'gone')]);
    const g = evaluateGate(base, { runId: 'new', attempts: [pass('a', 't1'), fail('a', 'fresh')] }, defaults, ctx);
    expect(g.verdict).toBe('PASS');
    expect(g.notes).toEqual(
      expect.arrayContaining([expect.stringMatching(/not in this run, not compared: gone/), expect.stringMatching(/not in the baseline, not compared: fresh/)]),
    );
  });

  it('an agent the baseline lacks pairs with its only agent, and is refused among several', () => {
    expect(pairAgents(['oracle'], ['nop'], 'b.json')).toEqual([['nop', 'oracle']]);
    expect(pairAgents(['nop', 'oracle'], ['oracle'], 'b.json')).toEqual([['oracle', 'oracle']]);
    expect(() => pairAgents(['nop', 'oracle'], ['x'], 'b.json')).toThrow(/agent x: baseline b\.json has no such agent .*\(fix:/);
  });

  it('finds tasks whose version changed, once per task', () => {
    const base = baselineOf([pass('a', 't1'), pass('b', 't1'), pass('a', 't2')]);
    expect(
      versionMismatches(base, [
        { id: 't1', version: '2' },
        { id: 't2', version: '1' },
      ]),
    ).toEqual([{ taskId: 't1', baselineVersion: '1', currentVersion: '2' }]);
  });
});
