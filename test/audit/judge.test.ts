import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTRACT, departures, isUnstable, judgeAudit, trialOutcomes, type AuditAttempt, type Registry } from '../../src/features/audit/index.js';
import { CHECK_IDS, type Cause, type Verdict } from '../../src/core/types/index.js';

/** A graded attempt as the engine records it: every check, the listed ones failed. */
function attempt(agent: string, trial: number, verdict: Verdict, cause: Cause, failed: string[] = [], taskId = 't1'): AuditAttempt {
  return { taskId, agent, trial, verdict, cause, checks: CHECK_IDS.map((id) => ({ id, passed: !failed.includes(id) })) };
}

const registry: Registry = {
  name: 'demo',
  version: '1.0.0',
  families: [{ id: 'fam', version: '1.0.0', taskIds: ['t1', 't2'], contract: DEFAULT_CONTRACT }],
  unregistered: [],
};

describe('trial instability', () => {
  it('groups trials by verdict, cause and failed checks, most frequent first, with their trial numbers', () => {
    const outcomes = trialOutcomes([
      attempt('oracle', 2, 'PASS', 'passed'),
      attempt('oracle', 0, 'FAIL', 'tests_failed', ['tests']),
      attempt('oracle', 1, 'PASS', 'passed'),
    ]);
    expect(outcomes).toEqual([
      { verdict: 'PASS', cause: 'passed', failedChecks: [], count: 2, trials: [1, 2] },
      { verdict: 'FAIL', cause: 'tests_failed', failedChecks: ['tests'], count: 1, trials: [0] },
    ]);
    expect(isUnstable(outcomes)).toBe(true);
  });

  it('sees trials that differ only in which checks failed as unstable, and identical trials as stable', () => {
    const differ = trialOutcomes([
      attempt('nop', 0, 'FAIL', 'no_changes', ['tests', 'no_changes']),
      attempt('nop', 1, 'FAIL', 'no_changes', ['no_changes', 'tests', 'regression']),
    ]);
    expect(differ.map((o) => o.failedChecks)).toEqual([
      ['tests', 'no_changes'],
      ['tests', 'regression', 'no_changes'],
    ]);
    expect(isUnstable(differ)).toBe(true);
    // The order checks were recorded in does not make two trials differ.
    const same = trialOutcomes([
      attempt('nop', 0, 'FAIL', 'no_changes', ['tests', 'no_changes']),
      attempt('nop', 1, 'FAIL', 'no_changes', ['no_changes', 'tests']),
    ]);
    expect(same).toHaveLength(1);
    expect(isUnstable(same)).toBe(false);
    expect(isUnstable(trialOutcomes([]))).toBe(false);
  });
});

describe('departures from a contract', () => {
  it('counts each way the trials departed: verdict, cause, and every required check', () => {
    const trials = [
      attempt('oracle', 0, 'FAIL', 'tests_failed', ['tests']),
      attempt('oracle', 1, 'PASS', 'passed'),
      attempt('oracle', 2, 'FAIL', 'regression', ['regression']),
    ];
    expect(departures(DEFAULT_CONTRACT.oracle!, trialOutcomes(trials), trials, 3)).toEqual([
      { field: 'verdict', expected: 'PASS', seen: 'FAIL', count: 2, of: 3 },
      { field: 'cause', expected: 'passed', seen: 'tests_failed', count: 1, of: 3 },
      { field: 'cause', expected: 'passed', seen: 'regression', count: 1, of: 3 },
      { field: 'check', check: 'tests', expected: 'passed', seen: 'failed', count: 1, of: 3 },
      { field: 'check', check: 'regression', expected: 'passed', seen: 'failed', count: 1, of: 3 },
    ]);
  });

  it('reports a check that must fail but passed, one that never ran, and missing trials', () => {
    const noChecks: AuditAttempt = { taskId: 't1', agent: 'nop', trial: 0, verdict: 'ERROR', cause: 'harness_error', checks: [] };
    const passedTests = attempt('nop', 1, 'FAIL', 'no_changes', ['no_changes']);
    const trials = [noChecks, passedTests];
    expect(departures(DEFAULT_CONTRACT.nop!, trialOutcomes(trials), trials, 3)).toEqual([
      { field: 'attempts', expected: '3', seen: '2', count: 1, of: 3 },
      { field: 'verdict', expected: 'FAIL', seen: 'ERROR', count: 1, of: 2 },
      { field: 'cause', expected: 'no_changes', seen: 'harness_error', count: 1, of: 2 },
      { field: 'check', check: 'tests', expected: 'failed', seen: 'not run', count: 1, of: 2 },
      { field: 'check', check: 'no_changes', expected: 'failed', seen: 'not run', count: 1, of: 2 },
      { field: 'check', check: 'tests', expected: 'failed', seen: 'passed', count: 1, of: 2 },
    ]);
  });

  it('finds nothing when every trial meets the contract', () => {
    const trials = [attempt('nop', 0, 'FAIL', 'no_changes', ['tests', 'no_changes']), attempt('nop', 1, 'FAIL', 'no_changes', ['tests', 'no_changes'])];
    expect(departures(DEFAULT_CONTRACT.nop!, trialOutcomes(trials), trials, 2)).toEqual([]);
  });
});

describe('judgeAudit', () => {
  it('judges each audited task of each family, per agent; a task conforms only without departures and instability', () => {
    const attempts = [
      attempt('oracle', 0, 'PASS', 'passed'),
      attempt('oracle', 1, 'PASS', 'passed'),
      attempt('nop', 0, 'FAIL', 'no_changes', ['tests', 'no_changes']),
      attempt('nop', 1, 'FAIL', 'no_changes', ['tests', 'no_changes']),
      // t2: the oracle passes once and fails once (unstable, and a departure in the failing trial).
      attempt('oracle', 0, 'PASS', 'passed', [], 't2'),
      attempt('oracle', 1, 'FAIL', 'tests_failed', ['tests'], 't2'),
      attempt('nop', 0, 'FAIL', 'no_changes', ['tests', 'no_changes'], 't2'),
      attempt('nop', 1, 'FAIL', 'no_changes', ['tests', 'no_changes'], 't2'),
    ];
    const [family] = judgeAudit(registry, attempts, 2, new Set(['t1', 't2']));
    expect(family).toMatchObject({ id: 'fam', version: '1.0.0', conform: false, departing: 1, unstable: 1 });
    expect(family?.tasks.map((t) => [t.taskId, t.conform, t.departs, t.unstable])).toEqual([
      ['t1', true, false, false],
      ['t2', false, true, true],
    ]);
    const oracle = family?.tasks[1]?.agents.find((a) => a.agent === 'oracle');
    expect(oracle?.outcomes.map((o) => [o.verdict, o.count])).toEqual([
      ['PASS', 1],
      ['FAIL', 1],
    ]);
    expect(oracle?.departures[0]).toEqual({ field: 'verdict', expected: 'PASS', seen: 'FAIL', count: 1, of: 2 });
  });

  it('leaves out tasks not audited (--task) and families with none', () => {
    expect(judgeAudit(registry, [], 1, new Set(['t2']))[0]?.tasks.map((t) => t.taskId)).toEqual(['t2']);
    expect(judgeAudit(registry, [], 1, new Set())).toEqual([]);
  });
});
