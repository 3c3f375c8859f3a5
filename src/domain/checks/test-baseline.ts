import type { TestCaseResult, TestRunEvidence } from '../../core/types/index.js';

/**
 * Ids that passed at the baseline, or undefined when there is no usable baseline to ask. A run
 * whose exit code disagrees with its report still tells which ids passed, so only a run without
 * a report is useless here.
 *
 * A listed id passes only as one case, so an id several cases share never passed. Under
 * `all_others` (`sharedIds`) nobody chose the ids: an id whose every case passed did pass, and
 * its cases are then held to that together (see regression.ts), rather than left unguarded.
 */
export function passedAtBaseline(baseline: TestRunEvidence | undefined, cases: TestCaseResult[] | undefined, sharedIds = false): Set<string> | undefined {
  if (baseline === undefined || cases === undefined || baseline.invalidReason !== undefined) return undefined;
  const counts = caseCounts(cases);
  return new Set([...counts].filter(([, n]) => (sharedIds ? n.passed >= 1 : n.passed === 1) && n.other === 0).map(([id]) => id));
}

/** Per id: how many of its cases passed and how many did not. */
export function caseCounts(cases: readonly TestCaseResult[]): Map<string, { passed: number; other: number }> {
  const counts = new Map<string, { passed: number; other: number }>();
  for (const c of cases) {
    const entry = counts.get(c.id) ?? { passed: 0, other: 0 };
    if (c.status === 'passed') entry.passed++;
    else entry.other++;
    counts.set(c.id, entry);
  }
  return counts;
}

/** Pass-to-pass ids as the task defines them at the baseline (`all_others`: every other parsed id). */
export function passToPassIds(spec: { failToPass: string[]; passToPass: string[] | 'all_others' }, cases: TestCaseResult[]): string[] {
  if (spec.passToPass !== 'all_others') return [...new Set(spec.passToPass)];
  const f2p = new Set(spec.failToPass);
  return [...new Set(cases.map((c) => c.id))].filter((id) => !f2p.has(id));
}
