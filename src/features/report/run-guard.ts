import { guardCounts } from '../../domain/guard/index.js';
import { peekPlanFile, peekSummaryFile } from '../../domain/run-dir/index.js';
import type { AttemptRow, HistoryReader } from '../../infra/store/index.js';
import type { GuardAgentCounts } from '../../core/types/index.js';

/**
 * The online guard's per-agent counts of a recorded run, for `crucible show` and the dashboard.
 * Only a run planned with `--guard` (plan.json's settings) has them, so an unguarded run costs one
 * small read; a finished run's come from summary.json, a killed or live run's from its recorded
 * attempt documents, as statsOfRecordedRun computes its statistics. `rows` may be a function, called
 * only when those documents are needed.
 */
export function guardOfRecordedRun(
  runDir: string,
  reader: HistoryReader,
  rows: readonly Pick<AttemptRow, 'attemptId'>[] | (() => readonly Pick<AttemptRow, 'attemptId'>[]),
): GuardAgentCounts[] | undefined {
  if (!peekPlanFile(runDir)?.settings?.guard) return undefined;
  const summary = peekSummaryFile(runDir);
  if (summary && Array.isArray(summary.guard)) return summary.guard as GuardAgentCounts[];
  const counts = guardCounts((typeof rows === 'function' ? rows() : rows).flatMap((r) => reader.getAttempt(r.attemptId)?.attempt ?? []));
  return counts.length > 0 ? counts : undefined;
}
