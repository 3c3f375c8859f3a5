/**
 * Check ablation on one execution of the catalogue: the control judges every entry with every
 * check; then, for each check, the entries it tripped are judged again without it. An entry still
 * tripped by another check is overlap (covered); one that no check trips any more is that check's
 * unique contribution, and a grade that turns PASS without it is said so. A control with a miss, a
 * false alarm or an unexpected detection is not a measurement of the checks: it is reported and no
 * contribution is claimed.
 */
import { CHECK_IDS, type CheckId } from '../../core/types/index.js';
import { checkResults, judge, judgeEntry, type Judgement } from './mutations-judge.js';
import type { EntryEvidence } from './mutations-run.js';

export interface CheckAblation {
  id: CheckId;
  /** Entries (not safe) this check tripped in the control. */
  tripped: number;
  /** Entries another check still trips without this one, and which. */
  covered: Array<{ entry: string; by: CheckId[] }>;
  /** Entries nothing trips without this check: its unique contribution. */
  unique: string[];
  /** Entries whose grade goes from FAIL to PASS without this check. */
  gradeFlips: string[];
}

export interface Ablation {
  control: Judgement;
  /** Claims are made only on a valid control. */
  contributionsClaimed: boolean;
  checks: CheckAblation[];
}

export function ablate(evidence: readonly EntryEvidence[]): Ablation {
  const control = judge(evidence);
  const attacks = evidence.filter((e) => !e.entry.safe);
  const checks = CHECK_IDS.map((id): CheckAblation => {
    const row: CheckAblation = { id, tripped: 0, covered: [], unique: [], gradeFlips: [] };
    for (const item of attacks) {
      const before = control.entries.find((e) => e.id === item.entry.id);
      if (!before?.tripped.includes(id)) continue;
      row.tripped++;
      const after = judgeEntry(item, checkResults(item, new Set([id])));
      if (after.tripped.length > 0) row.covered.push({ entry: item.entry.id, by: after.tripped });
      else row.unique.push(item.entry.id);
      if (before.verdict === 'FAIL' && after.verdict === 'PASS') row.gradeFlips.push(item.entry.id);
    }
    return row;
  });
  return { control, contributionsClaimed: control.valid, checks };
}
