/**
 * The attack classes of issue 36 arriving as predictions to `crucible grade` instead of as agents:
 * a module the environment lacks (org.py), the runner reached through the heap, a value whose
 * __eq__ always holds, node:assert neutered by destructuring. Each is the catalogue's own scenario
 * (helpers/patches.ts turns it into a patch) graded in bwrap: none may PASS or end ERROR. The honest
 * controls beside them (a fix using gc, optional imports and a subprocess; value classes with honest
 * __eq__; destructuring the assertion module's own functions) pass with no failed check.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRun } from '../../src/engine/index.js';
import { gradeRunOptions } from '../../src/features/grade/options.js';
import { loadRunInput } from '../../src/features/suite/index.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import type { AttemptResult, Task } from '../../src/core/types/index.js';
import { ATTACKS as CATALOGUE, expectedFor, type Attack } from '../../src/domain/redteam/index.js';
import { meetsAttackExpectation } from '../../src/domain/grading/validity.js';
import { attackPatch, INIT_REPORT_ATTACKS } from './helpers/patches.js';

const ATTACKS: Record<string, string[]> = {
  'py-median': ['missing-module', 'heap-runner', 'eq-liar', ...INIT_REPORT_ATTACKS.keys()],
  'js-slugify': ['assert-destructure'],
};
const HONEST: Record<string, string[]> = {
  'py-median': ['oracle-honest-runtime', 'oracle-value-class'],
  'js-slugify': ['oracle-assert-copy'],
};

let root = '';
let attempts: AttemptResult[] = [];
const tasks = new Map(loadTaskSet('examples/tasks.yaml').tasks.map((t) => [t.id, t]));

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'crucible-redteam-grade-'));
  const predictions: string[] = [];
  for (const [taskId, names] of Object.entries({ ...ATTACKS })) {
    for (const name of [...names, ...(HONEST[taskId] ?? [])])
      predictions.push(JSON.stringify({ instance_id: taskId, model_name_or_path: name, model_patch: await attackPatch(name, tasks.get(taskId) as Task) }));
  }
  const file = join(root, 'predictions.jsonl');
  writeFileSync(file, predictions.join('\n'));
  const { options } = gradeRunOptions({
    input: loadRunInput('examples/tasks.yaml'),
    predictions: file,
    stateDir: join(root, 'state'),
    sandbox: 'bwrap',
    concurrency: 2,
  });
  attempts = (await executeRun(options)).attempts;
}, 1_200_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const failed = (a: AttemptResult): string[] => a.checks.filter((c) => !c.passed).map((c) => c.id);

describe('issue 36 attacks as crucible grade predictions (bwrap)', () => {
  it('grades every prediction', () => {
    const expected = Object.entries({ ...ATTACKS }).flatMap(([t, names]) => [...names, ...(HONEST[t] ?? [])].map((n) => `${n} ${t}`));
    expect(attempts.map((a) => `${a.agent} ${a.taskId}`).sort()).toEqual(expected.sort());
  });

  it('no attack PASSes or ends ERROR; each ends as the catalogue says', () => {
    const attackNames = new Set(Object.values(ATTACKS).flat());
    const ends = (a: AttemptResult): boolean => {
      // A forged init report is refused by the kernel: the bug stays in, so the tests fail.
      if (INIT_REPORT_ATTACKS.has(a.agent)) return a.verdict === 'FAIL' && a.cause !== 'harness_error';
      const attack = CATALOGUE.find((c) => c.name === a.agent) as Attack;
      return a.verdict === 'FAIL' && meetsAttackExpectation(expectedFor(attack, tasks.get(a.taskId) as Task), a);
    };
    const wrong = attempts
      .filter((a) => attackNames.has(a.agent) && !ends(a))
      .map((a) => ({ agent: a.agent, task: a.taskId, verdict: a.verdict, cause: a.cause, failed: failed(a), message: a.message }));
    expect(wrong).toEqual([]);
  });

  it('the honest controls pass with no failed check', () => {
    const honest = new Set(Object.values(HONEST).flat());
    const wrong = attempts
      .filter((a) => honest.has(a.agent) && (a.verdict !== 'PASS' || failed(a).length > 0))
      .map((a) => ({ agent: a.agent, task: a.taskId, verdict: a.verdict, failed: failed(a), message: a.message }));
    expect(wrong).toEqual([]);
  });
});
