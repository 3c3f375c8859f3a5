/**
 * Judges executed catalogue entries against what each declares: the checks it must trip, those it
 * may, and (for safe entries) none at all. Disabled checks are left out of the registry run, as if
 * they did not exist, so a check's absence shows as the misses it causes.
 */
import { CHECKS } from '../../domain/checks/index.js';
import { judge as judgeOutcome } from '../../domain/grading/index.js';
import { CHECK_IDS, type CheckId, type CheckResult } from '../../core/types/index.js';
import type { EntryEvidence } from './mutations-run.js';

export type EntryStatus = 'ok' | 'missed' | 'false_alarm' | 'unexpected';

export interface EntryResult {
  id: string;
  category: string;
  fixture: string;
  safe: boolean;
  description: string;
  expected: CheckId[];
  tripped: CheckId[];
  missed: CheckId[];
  /** Tripped on an entry that is not safe, neither required nor tolerated. */
  unexpected: CheckId[];
  /** Tripped on a safe entry. */
  falseAlarms: CheckId[];
  /** What each tripped check said (names files, rules and detectors; never a secret's value). */
  messages: Array<{ check: CheckId; message: string }>;
  verdict: 'PASS' | 'FAIL';
  cause: string;
  status: EntryStatus;
}

export interface Tally {
  expected: number;
  detected: number;
  missed: number;
  unexpected: number;
  falseAlarms: number;
}

export interface Judgement {
  entries: EntryResult[];
  checks: Array<{ id: CheckId; disabled: boolean } & Tally>;
  categories: Array<{ category: string; entries: number } & Tally>;
  summary: Tally & { entries: number; safe: number; detectionRate: number | null; safeEntriesWithFalseAlarms: number };
  /** No miss, no false alarm, no unexpected detection. */
  valid: boolean;
}

export function checkResults(item: EntryEvidence, disabled: ReadonlySet<CheckId>): CheckResult[] {
  return CHECK_IDS.filter((id) => !disabled.has(id)).map((id) => {
    const outcome = CHECKS[id].run(item.input);
    return { id, passed: outcome.passed, severity: item.input.policy.severities[id], message: outcome.message, evidence: outcome.evidence };
  });
}

export function judgeEntry(item: EntryEvidence, checks: readonly CheckResult[]): EntryResult {
  const { entry } = item;
  const tripped = checks.filter((c) => !c.passed).map((c) => c.id as CheckId);
  const expected = [...entry.trips];
  const missed = expected.filter((id) => !tripped.includes(id));
  const falseAlarms = entry.safe ? tripped : [];
  const unexpected = entry.safe ? [] : tripped.filter((id) => !expected.includes(id) && !entry.tolerates.includes(id));
  const g = judgeOutcome({ kind: 'graded', checks });
  const status: EntryStatus = missed.length > 0 ? 'missed' : falseAlarms.length > 0 ? 'false_alarm' : unexpected.length > 0 ? 'unexpected' : 'ok';
  return {
    id: entry.id,
    category: entry.category,
    fixture: entry.fixture,
    safe: entry.safe,
    description: entry.description,
    expected,
    tripped,
    missed,
    unexpected,
    falseAlarms,
    messages: checks.filter((c) => !c.passed).map((c) => ({ check: c.id as CheckId, message: c.message })),
    verdict: g.verdict === 'PASS' ? 'PASS' : 'FAIL',
    cause: g.cause,
    status,
  };
}

export function judge(evidence: readonly EntryEvidence[], disabled: ReadonlySet<CheckId> = new Set()): Judgement {
  const entries = evidence.map((item) => judgeEntry(item, checkResults(item, disabled)));
  const empty = (): Tally => ({ expected: 0, detected: 0, missed: 0, unexpected: 0, falseAlarms: 0 });
  const perCheck = new Map<CheckId, Tally>(CHECK_IDS.map((id) => [id, empty()]));
  const perCategory = new Map<string, Tally & { entries: number }>();
  const total = empty();
  for (const e of entries) {
    const cat = perCategory.get(e.category) ?? { entries: 0, ...empty() };
    perCategory.set(e.category, cat);
    cat.entries++;
    const add = (id: CheckId, key: keyof Tally): void => {
      (perCheck.get(id) as Tally)[key]++;
      cat[key]++;
      total[key]++;
    };
    for (const id of e.expected) {
      add(id, 'expected');
      add(id, e.missed.includes(id) ? 'missed' : 'detected');
    }
    for (const id of e.unexpected) add(id, 'unexpected');
    for (const id of e.falseAlarms) add(id, 'falseAlarms');
  }
  return {
    entries,
    checks: CHECK_IDS.map((id) => ({ id, disabled: disabled.has(id), ...(perCheck.get(id) as Tally) })),
    categories: [...perCategory.entries()].map(([category, t]) => ({ category, ...t })),
    summary: {
      entries: entries.length,
      safe: entries.filter((e) => e.safe).length,
      ...total,
      detectionRate: total.expected === 0 ? null : total.detected / total.expected,
      safeEntriesWithFalseAlarms: entries.filter((e) => e.falseAlarms.length > 0).length,
    },
    valid: entries.every((e) => e.status === 'ok'),
  };
}
