import { crucibleTestId } from './swe-bench-patch.js';

/** A FAIL_TO_PASS / PASS_TO_PASS id that no test run can ever report, and why. */
export interface UnmatchableId {
  field: 'FAIL_TO_PASS' | 'PASS_TO_PASS';
  id: string;
  problem: string;
}

/**
 * The ids of an instance that can never match a test the run reports (issue 27: a real record's
 * PASS_TO_PASS holds absolute paths from the dataset authors' machines and ids cut off
 * mid-parameter): an absolute path (the tests run with repo-relative ids), a parameter list that
 * was cut off (`test_unpack[`), an id listed twice (in one list or in both).
 */
export function unmatchableIds(failToPass: readonly string[], passToPass: readonly string[]): UnmatchableId[] {
  const out: UnmatchableId[] = [];
  const seen = new Map<string, 'FAIL_TO_PASS' | 'PASS_TO_PASS'>();
  const lists = [
    ['FAIL_TO_PASS', failToPass],
    ['PASS_TO_PASS', passToPass],
  ] as const;
  for (const [field, ids] of lists) {
    for (const id of ids) {
      const problem = idProblem(id);
      if (problem !== undefined) {
        out.push({ field, id, problem });
        continue;
      }
      const key = crucibleTestId(id) ?? id;
      const first = seen.get(key);
      if (first !== undefined) out.push({ field, id, problem: first === field ? `is listed twice in ${field}` : `is in ${first} too` });
      else seen.set(key, field);
    }
  }
  return out;
}

function idProblem(id: string): string | undefined {
  if (id.startsWith('/') || /^[A-Za-z]:[\\/]/.test(id)) return "is an absolute path (from the dataset authors' machine); ids are relative to the repo";
  const open = id.indexOf('[');
  if (open !== -1 && !id.endsWith(']')) return 'is cut off inside its parameters (no closing ])';
  return undefined;
}
