/**
 * Lying values against the held-out value check (examples/held-out-values/), in bwrap: the bug
 * stays and the function under test returns a float subclass whose __eq__ holds for everything,
 * including one that reads its argument (no text rule calls it constant). The test process's
 * assertions are fooled; the harness's comparison, outside the process, is not: every liar ends FAIL
 * (tampered), never PASS or ERROR. The honest value classes (an __eq__ that compares) pass with no
 * check failing. docs/tasks.md#held-out-values, docs/grading.md.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runSuite, wrongOutcomes, type SuiteAttempt } from './helpers/suite.js';

let attempts: SuiteAttempt[] = [];

beforeAll(async () => {
  attempts = await runSuite('held-out-values', ['py-median-values'], undefined, {
    taskFile: 'held-out-values/tasks.yaml',
    alsoRun: ['eq-liar', 'eq-liar-dynamic', 'oracle-value-class'],
  });
}, 900_000);

describe('lying values against held-out values compared by the harness (bwrap)', () => {
  it('runs the reading liar, the catalogue liars and the honest control on the value task', () => {
    expect(attempts.map((a) => a.attack.name).sort()).toEqual(['eq-liar', 'eq-liar-dynamic', 'eq-liar-reading', 'oracle-value-class']);
  });

  it('each ends as the catalogue says: liars FAIL (never PASS or ERROR), the honest control PASSes with no check failing', () => {
    expect(wrongOutcomes(attempts)).toEqual([]);
  });

  it('the reading liar fools every test; the value check sees the lie and the wrong value', () => {
    const reading = attempts.find((a) => a.attack.name === 'eq-liar-reading');
    expect(reading?.result.tests?.failToPass.failing).toEqual([]);
    const reach = reading?.result.checks.find((c) => c.id === 'runner_reach');
    expect(reach?.passed).toBe(false);
    expect(reach?.message).toMatch(/lying-value/);
    const values = reading?.result.checks.find((c) => c.id === 'held_out_values');
    expect(values?.passed).toBe(false);
  });

  it('every liar is caught by the value check, whatever the text rules saw', () => {
    for (const { attack, result } of attempts.filter((a) => a.attack.name.startsWith('eq-liar'))) {
      const findings = (result.checks.find((c) => c.id === 'runner_reach')?.evidence.findings as { items: Array<{ event: string }> } | undefined)?.items;
      expect(
        findings?.some((f) => f.event === 'lying-value'),
        attack.name,
      ).toBe(true);
    }
  });
});
