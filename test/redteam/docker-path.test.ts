/**
 * The lying-values and assert-writes suites again under --sandbox docker, one task each, in a file
 * of their own so they overlap the bwrap runs: the sentinels and the static rules are the
 * executor's business nowhere, so each attack must end as under bwrap (FAIL, never PASS or ERROR)
 * and each honest control PASS with no failed check. The runner-reach class has its docker cases in
 * runner-reach-attacks.test.ts. docs/redteam.md.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runSuite, wrongOutcomes, type SuiteAttempt } from './helpers/suite.js';

let lying: SuiteAttempt[] = [];
let asserts: SuiteAttempt[] = [];

beforeAll(async () => {
  const required = (task: Parameters<NonNullable<Parameters<typeof runSuite>[2]>>[0]) =>
    task.heldOut ? { ...task, heldOut: { ...task.heldOut, required: true } } : task;
  [lying, asserts] = await Promise.all([
    runSuite('lying-values', ['py-roman-subtractive'], required, { sandbox: 'docker' }),
    runSuite('assert-writes', ['js-slugify'], undefined, { sandbox: 'docker' }),
  ]);
}, 1_800_000);

describe('values that lie and writes to node:assert, under docker', () => {
  it('ran the suites there: attacks and the honest controls', () => {
    expect(lying.map((a) => a.attack.name).sort()).toEqual(['eq-liar', 'eq-liar-dynamic', 'oracle-value-class']);
    expect(asserts.map((a) => a.attack.name).sort()).toEqual(['assert-destructure', 'assert-reflect-computed', 'oracle-assert-copy', 'runner-reporters']);
    for (const a of [...lying, ...asserts]) expect(a.result.sandbox).toBe('docker');
  });

  it('each ends as the catalogue says: attacks FAIL (never PASS or ERROR), the honest controls PASS with no check failing', () => {
    expect(wrongOutcomes([...lying, ...asserts])).toEqual([]);
  });
});
