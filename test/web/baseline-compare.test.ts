import { describe, expect, it } from 'vitest';
import type { BaselineFile } from '../../src/features/baseline/index.js';
import { compareWithBaseline, parseBaseline, type Baseline, type RunAttempt } from '../../web/src/data/baseline.js';

function attempts(...verdicts: ('PASS' | 'FAIL' | 'ERROR')[]): BaselineFile['entries'][number]['attempts'] {
  return verdicts.map((verdict, trial) => ({ trial, verdict, cause: verdict === 'PASS' ? 'passed' : 'tests_failed', failedChecks: [] }));
}

// The file `crucible baseline save` writes (its type), read by the dashboard (its type): both must hold.
const BASELINE = {
  version: 1,
  createdAt: '2026-11-30T10:00:00.000Z',
  sourceRun: 'run-base',
  taskSet: 'tasks.yaml',
  trials: 2,
  entries: [
    { taskId: 't1', taskVersion: 'v1', agent: { spec: 'oracle' }, attempts: attempts('PASS', 'PASS') },
    { taskId: 't2', taskVersion: 'v1', agent: { spec: 'oracle' }, attempts: attempts('PASS', 'PASS') },
    { taskId: 't3', taskVersion: 'v1', agent: { spec: 'oracle' }, attempts: attempts('FAIL', 'FAIL') },
    { taskId: 't4', taskVersion: 'v1', agent: { spec: 'oracle' }, attempts: attempts('PASS') },
  ],
} satisfies BaselineFile & Baseline;

const attempt = (taskId: string, verdict: RunAttempt['verdict'], agent = 'oracle'): RunAttempt => ({ taskId, agent, verdict });

describe('baseline against a run, per task', () => {
  it('highlights PASS→FAIL and FAIL→PASS, lists tasks missing on either side, regressions first', () => {
    const run = [
      attempt('t1', 'PASS'),
      attempt('t1', 'PASS'),
      attempt('t2', 'FAIL'),
      attempt('t2', 'FAIL'),
      attempt('t3', 'PASS'),
      attempt('t3', 'PASS'),
      attempt('t5', 'PASS'),
    ];
    const result = compareWithBaseline(BASELINE, run);
    expect(result.rows.map((r) => [r.taskId, r.change])).toEqual([
      ['t2', 'PASS→FAIL'],
      ['t3', 'FAIL→PASS'],
      ['t4', 'not in run'],
      ['t5', 'new in run'],
      ['t1', 'same'],
    ]);
    expect(result.flips).toEqual({ passToFail: 1, failToPass: 1 });
    expect(result.rows[0]).toMatchObject({ baseline: { passes: 2, n: 2 }, run: { passes: 0, n: 2, errors: 0 } });
  });

  it('a run that only errored on a task is not counted as a flip', () => {
    const result = compareWithBaseline(BASELINE, [attempt('t1', 'ERROR')]);
    expect(result.rows.find((r) => r.taskId === 't1')?.change).toBe('errored');
    expect(result.flips.passToFail).toBe(0);
  });

  it('pairs the only agent of each when their names differ, and says so; matches agent:model', () => {
    const other = compareWithBaseline(BASELINE, [attempt('t1', 'FAIL', 'nop')]);
    expect(other.rows.find((r) => r.taskId === 't1')).toMatchObject({ agent: 'nop', change: 'PASS→FAIL' });
    expect(other.notes).toEqual(['compared nop (run) with oracle (baseline): the only agent of each']);
    const withModel: Baseline = {
      ...BASELINE,
      entries: [{ taskId: 't1', taskVersion: 'v1', agent: { spec: 'openai:gpt-4.1-mini', model: 'gpt-4.1-mini' }, attempts: attempts('PASS') }],
    };
    const run = [attempt('t1', 'FAIL', 'openai:gpt-4.1-mini'), attempt('t1', 'PASS', 'oracle')];
    expect(compareWithBaseline(withModel, run).rows.find((r) => r.taskId === 't1' && r.baseline)).toMatchObject({
      agent: 'openai:gpt-4.1-mini',
      change: 'PASS→FAIL',
    });
  });

  it('parses the documented shape and names the wrong field otherwise', () => {
    expect(parseBaseline(JSON.stringify(BASELINE))).toEqual({ ok: true, baseline: BASELINE });
    expect(parseBaseline('nope')).toMatchObject({ ok: false, error: expect.stringMatching(/not JSON/) as unknown });
    expect(parseBaseline('{"version":2,"entries":[]}')).toEqual({ ok: false, error: 'version: expected 1, got 2' });
    expect(parseBaseline('{"version":1}')).toEqual({ ok: false, error: 'entries: expected a list' });
    expect(parseBaseline('{"version":1,"entries":[{"taskId":"t","agent":{"spec":"a"},"attempts":[{"verdict":"MAYBE"}]}]}')).toEqual({
      ok: false,
      error: 'entries[0].attempts[0].verdict: expected PASS, FAIL or ERROR',
    });
    expect(parseBaseline('{"version":1,"entries":[{"taskId":"t","agent":"a","attempts":[]}]}')).toEqual({
      ok: false,
      error: 'entries[0].agent.spec: expected a string',
    });
  });
});
