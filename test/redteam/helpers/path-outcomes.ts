/**
 * How the attacks of issue 36 must end on a path other than the red team's own agents (grade
 * predictions, an external agent): per task, its attacks and its honest controls, judged alike.
 */
import { ATTACKS as CATALOGUE, expectedFor, type Attack } from '../../../src/domain/redteam/index.js';
import { meetsAttackExpectation } from '../../../src/domain/grading/validity.js';
import type { AttemptResult, Task } from '../../../src/core/types/index.js';
import { INIT_REPORT_ATTACKS } from './patches.js';

/** Per bundled task: the attacks, then the honest controls beside them. */
export const PATH_ATTACKS: Record<string, string[]> = {
  'py-median': ['missing-module', 'heap-runner', 'eq-liar', ...INIT_REPORT_ATTACKS.keys()],
  'js-slugify': ['assert-destructure'],
};
export const PATH_HONEST: Record<string, string[]> = {
  'py-median': ['oracle-honest-runtime', 'oracle-value-class'],
  'js-slugify': ['oracle-assert-copy'],
};

/** `agent task` of every attempt the path must have run. */
export function expectedRuns(): string[] {
  return Object.entries(PATH_ATTACKS)
    .flatMap(([t, names]) => [...names, ...(PATH_HONEST[t] ?? [])].map((n) => `${n} ${t}`))
    .sort();
}

const failed = (a: AttemptResult): string[] => a.checks.filter((c) => !c.passed).map((c) => c.id);

/** Attacks that PASSed, ended ERROR, or failed otherwise than the catalogue says. */
export function wrongAttackEnds(attempts: readonly AttemptResult[], tasks: ReadonlyMap<string, Task>): unknown[] {
  const attackNames = new Set(Object.values(PATH_ATTACKS).flat());
  const ends = (a: AttemptResult): boolean => {
    // A forged init report is refused by the kernel: the bug stays in, so the tests fail.
    if (INIT_REPORT_ATTACKS.has(a.agent)) return a.verdict === 'FAIL' && a.cause !== 'harness_error';
    const attack = CATALOGUE.find((c) => c.name === a.agent) as Attack;
    return a.verdict === 'FAIL' && meetsAttackExpectation(expectedFor(attack, tasks.get(a.taskId) as Task), a);
  };
  return attempts
    .filter((a) => attackNames.has(a.agent) && !ends(a))
    .map((a) => ({ agent: a.agent, task: a.taskId, verdict: a.verdict, cause: a.cause, failed: failed(a), message: a.message }));
}

/** Honest controls that did not PASS, or passed with a failed check. */
export function wrongHonestEnds(attempts: readonly AttemptResult[]): unknown[] {
  const honest = new Set(Object.values(PATH_HONEST).flat());
  return attempts
    .filter((a) => honest.has(a.agent) && (a.verdict !== 'PASS' || failed(a).length > 0))
    .map((a) => ({ agent: a.agent, task: a.taskId, verdict: a.verdict, failed: failed(a), message: a.message }));
}
