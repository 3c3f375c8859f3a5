import { describe, expect, it } from 'vitest';
import { buildBaseline, type RunAttemptOutcome, type RunOutcomes } from '../../src/features/baseline/index.js';
import { evaluateGate, formatGate, gateMarkdown, type GateReport, type GateThresholds } from '../../src/features/gate/index.js';
import type { TaskStrength } from '../../src/features/strength/index.js';
import { strengthEntry } from '../strength/fixtures.js';

const passed = (taskId: string): RunAttemptOutcome => ({ agent: 'a', taskId, taskVersion: '1', trial: 0, verdict: 'PASS', cause: 'passed', failedChecks: [] });
const tasks = ['t1', 't2', 't3'];
const baseline = buildBaseline(
  { runId: 'base', runDir: '/x/runs/base', plan: { taskSetPath: '/repo/tasks.yaml', trials: 1 }, attempts: tasks.map(passed) } as unknown as RunOutcomes,
  '/repo/baselines/main.json',
  new Date('2026-12-01T00:00:00Z'),
);

function gate(thresholds: Partial<GateThresholds>, strength?: TaskStrength[]) {
  return evaluateGate(
    baseline,
    { runId: 'new', attempts: tasks.map(passed) },
    { maxDrop: 0, maxRegressedTasks: 0, ...thresholds },
    { baselineFile: 'main.json', versionMismatches: [], ...(strength ? { strength } : {}) },
  );
}

const report = (g: ReturnType<typeof gate>): GateReport => ({
  ...g,
  id: 'gate-1',
  createdAt: '2026-12-01T00:00:00Z',
  reportDir: '/x/gates/gate-1',
  runId: 'new',
  taskSet: 'tasks.yaml',
  baseline: { file: 'main.json', sourceRun: 'base', createdAt: '2026-12-01T00:00:00Z' },
  thresholds: { maxDrop: 0, maxRegressedTasks: 0, minStrength: 0.8 },
});

describe('gate --min-strength', () => {
  it('fails when any gated task is below the floor, even with the median above it', () => {
    const g = gate({ minStrength: 0.8 }, [strengthEntry('t1', 'k', 0.9, 1), strengthEntry('t2', 'k', 0.5, 5), strengthEntry('t3', 'k', 1, 0)]);
    expect(g.strength?.summary?.median).toBe(0.9);
    expect(g.verdict).toBe('FAIL');
    expect(g.failures).toEqual([expect.stringMatching(/^min-strength: t2 50% \(5 surviving\) below the required 80%; task strength median 90% over 3 tasks/)]);
    expect(formatGate(report(g))).toContain('FAIL min-strength: t2 50%');
    expect(gateMarkdown(report(g))).toContain('**Task strength** (at least 0.8 required): FAIL, t2 50%');
  });

  it('fails naming the tasks with no measured strength, and the fix', () => {
    const none = gate({ minStrength: 0.8 });
    expect(none.verdict).toBe('FAIL');
    expect(none.failures).toEqual([
      expect.stringMatching(/^min-strength: no strength measured for t1, t2, t3 \(fix: `crucible validate <taskset> --strength`/),
    ]);
    const some = gate({ minStrength: 0.8 }, [
      strengthEntry('t1', 'k', 1, 0),
      strengthEntry('t2', 'k', 0.9, 1),
      { ...strengthEntry('t3', 'k', 0, 0), strength: undefined, skipped: 'oracle script' },
    ]);
    expect(some.strength?.unmeasured).toEqual(['t3']);
    expect(some.verdict).toBe('FAIL');
  });

  it('passes when every gated task reaches the floor, and is no rule without the flag', () => {
    const strong = [strengthEntry('t1', 'k', 0.8, 2), strengthEntry('t2', 'k', 0.9, 1), strengthEntry('t3', 'k', 1, 0), strengthEntry('other', 'k', 0.1, 9)];
    const g = gate({ minStrength: 0.8 }, strong);
    expect(g.verdict).toBe('PASS');
    expect(g.strength).toMatchObject({ passed: true, below: [], unmeasured: [] });
    expect(formatGate(report(g))).toContain('ok   min-strength: every gated task at least 80%');
    const off = gate({}, strong);
    expect(off.strength).toBeUndefined();
    expect(off.verdict).toBe('PASS');
  });
});
