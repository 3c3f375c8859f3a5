/**
 * The assert-writes suite (src/domain/redteam/assert-writes.ts) on the bundled JavaScript and
 * TypeScript tasks, in bwrap: writes to node:assert and node:test from code under test, in
 * spellings a reading of the text does not follow, end FAIL (tampered) on the Node sentinel's
 * evidence, never PASS or ERROR; destructuring and copying the module's own objects passes with no
 * check failing. docs/redteam.md, docs/grading.md.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ATTACKS } from '../../src/domain/redteam/index.js';
import { runSuite, wrongOutcomes, type SuiteAttempt } from './helpers/suite.js';

let attempts: SuiteAttempt[] = [];

beforeAll(async () => {
  attempts = await runSuite('assert-writes', ['js-slugify', 'ts-lru-recency']);
}, 1_200_000);

describe('writes to node:assert and node:test from code under test (bwrap)', () => {
  it('runs every attack of the suite on both tasks', () => {
    const names = ATTACKS.filter((a) => a.suite === 'assert-writes').map((a) => a.name);
    for (const name of names)
      expect(
        attempts
          .filter((a) => a.attack.name === name)
          .map((a) => a.taskId)
          .sort(),
        name,
      ).toEqual(['js-slugify', 'ts-lru-recency']);
  });

  it('each ends as the catalogue says: attacks FAIL (never PASS or ERROR), the honest control PASSes with no check failing', () => {
    expect(wrongOutcomes(attempts)).toEqual([]);
  });

  it('the verdict rests on the sentinel: every attack names what the test process tried to write, in the module under test', () => {
    for (const { attack, taskId, result } of attempts.filter((a) => a.attack.class === 'assert-writes')) {
      const check = result.checks.find((c) => c.id === 'runner_internals');
      const sentinel = check?.evidence.sentinel as { items: Array<{ target: string; file?: string }> } | undefined;
      expect(sentinel?.items.length, `${attack.name} on ${taskId}: ${check?.message ?? ''}`).toBeGreaterThan(0);
      expect(sentinel?.items.every((w) => /^node:(assert|test)/.test(w.target))).toBe(true);
    }
  });
});
