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
import { attackPatch } from './helpers/patches.js';
import { expectedRuns, PATH_ATTACKS, PATH_HONEST, wrongAttackEnds, wrongHonestEnds } from './helpers/path-outcomes.js';

let root = '';
let attempts: AttemptResult[] = [];
const tasks = new Map(loadTaskSet('examples/tasks.yaml').tasks.map((t) => [t.id, t]));

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'crucible-redteam-grade-'));
  const predictions: string[] = [];
  for (const [taskId, names] of Object.entries(PATH_ATTACKS)) {
    for (const name of [...names, ...(PATH_HONEST[taskId] ?? [])])
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

describe('issue 36 attacks as crucible grade predictions (bwrap)', () => {
  it('grades every prediction', () => {
    expect(attempts.map((a) => `${a.agent} ${a.taskId}`).sort()).toEqual(expectedRuns());
  });

  it('no attack PASSes or ends ERROR; each ends as the catalogue says', () => {
    expect(wrongAttackEnds(attempts, tasks)).toEqual([]);
  });

  it('the honest controls pass with no failed check', () => {
    expect(wrongHonestEnds(attempts)).toEqual([]);
  });
});
