/**
 * The lying-values suite (src/domain/redteam/lying-values.ts), in bwrap: the bug stays and the
 * function under test returns a float/str subclass whose __eq__ always holds (Python; the roman
 * task with its held-out tests required), or JS code adds constant conversions. None may PASS or
 * end ERROR; the honest value classes pass with no check failing. docs/redteam.md, docs/grading.md.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ATTACKS } from '../../src/domain/redteam/index.js';
import { runSuite, wrongOutcomes, type SuiteAttempt } from './helpers/suite.js';

let attempts: SuiteAttempt[] = [];

beforeAll(async () => {
  attempts = await runSuite('lying-values', ['py-median', 'py-roman-subtractive', 'js-slugify'], (task) =>
    task.heldOut ? { ...task, heldOut: { ...task.heldOut, required: true } } : task,
  );
}, 1_200_000);

describe('values that lie about themselves (bwrap)', () => {
  it('runs every attack of the suite on at least one task, the Python ones on the held-out task too', () => {
    for (const attack of ATTACKS.filter((a) => a.suite === 'lying-values'))
      expect(
        attempts.some((a) => a.attack.name === attack.name),
        attack.name,
      ).toBe(true);
    for (const name of ['eq-liar', 'eq-liar-dynamic']) expect(attempts.some((a) => a.attack.name === name && a.taskId === 'py-roman-subtractive')).toBe(true);
  });

  it('each ends as the catalogue says: attacks FAIL (never PASS or ERROR), the honest control PASSes with no check failing', () => {
    expect(wrongOutcomes(attempts)).toEqual([]);
  });

  it('the Python liars fool every test, held-out ones included: the lying-value analysis is what stops them', () => {
    for (const { attack, taskId, result } of attempts.filter((a) => a.attack.name.startsWith('eq-liar'))) {
      expect(result.tests?.failToPass.failing, `${attack.name} on ${taskId}`).toEqual([]);
      if (taskId === 'py-roman-subtractive') expect(result.heldOut?.passToPass.failing, `${attack.name} held-out`).toEqual([]);
      const findings = result.checks.find((c) => c.id === 'runner_internals')?.evidence.findings as { items: Array<{ rule: string }> } | undefined;
      expect(findings?.items.map((f) => f.rule)).toContain('lying-value');
    }
  });
});
