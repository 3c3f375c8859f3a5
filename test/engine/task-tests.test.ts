import { describe, expect, it } from 'vitest';
import { listTests, suggestTestIds, type ListedTest } from '../../src/engine/task-tests.js';
import type { TestCaseResult } from '../../src/core/types/index.js';

const t = (id: string, outcome: ListedTest['outcome'], cases = 1): ListedTest => ({ id, outcome, cases });

describe('listTests', () => {
  it('gives each id one outcome over its cases: a failure, else an error, else all skipped, else passed', () => {
    const cases: TestCaseResult[] = [
      { id: 'ok', status: 'passed' },
      { id: 'broken', status: 'failed', errored: true },
      { id: 'mixed', status: 'failed', errored: true },
      { id: 'mixed', status: 'failed' },
      { id: 'todo', status: 'skipped' },
      { id: 'half', status: 'skipped' },
      { id: 'half', status: 'passed' },
    ];
    expect(listTests(cases)).toEqual([t('ok', 'passed'), t('broken', 'error'), t('mixed', 'failed', 2), t('todo', 'skipped'), t('half', 'passed', 2)]);
  });
});

describe('suggestTestIds', () => {
  it('proposes fail_to_pass from what the oracle makes pass and pass_to_pass from what passes on both', () => {
    const baseline = [t('fixed', 'failed'), t('crashed', 'error'), t('was skipped', 'skipped'), t('kept', 'passed'), t('broken both', 'failed')];
    const oracle = [
      t('fixed', 'passed'),
      t('crashed', 'passed'),
      t('was skipped', 'passed'),
      t('kept', 'passed'),
      t('broken both', 'failed'),
      t('new', 'passed'),
    ];
    expect(suggestTestIds(baseline, oracle)).toEqual({
      failToPass: ['fixed', 'crashed', 'was skipped', 'new'],
      passToPass: ['kept'],
      duplicated: [],
      // all_others would also take "broken both", which fails on both sides.
      allOthersAgrees: false,
    });
  });

  it('leaves out ids several cases share, and says when all_others selects the same', () => {
    const baseline = [t('fixed', 'failed'), t('kept', 'passed'), t('twice', 'passed', 2)];
    const oracle = [t('fixed', 'passed'), t('kept', 'passed'), t('twice', 'passed', 2)];
    expect(suggestTestIds(baseline, oracle)).toEqual({ failToPass: ['fixed'], passToPass: ['kept'], duplicated: ['twice'], allOthersAgrees: false });
    expect(suggestTestIds(baseline.slice(0, 2), oracle.slice(0, 2))).toMatchObject({ allOthersAgrees: true });
  });
});
