import { attemptRecordFile, findRunDir, readAttemptRecord, readCheckpoint, readPlanFile, type RunPlanFile } from '../../domain/run-dir/index.js';
import { InputError } from '../../core/errors.js';
import { gateCellOf, type GateCell } from '../../core/types/index.js';

/** One finished attempt of a run, reduced to what baselines and gates compare (gateCellOf). */
export type RunAttemptOutcome = GateCell;

export interface RunOutcomes {
  runId: string;
  runDir: string;
  plan: RunPlanFile;
  attempts: RunAttemptOutcome[];
}

/**
 * A run's finished attempts, from its directory: the checkpoint says which attempts are done, their
 * attempt.json files say how they ended. Reading the files (not the history) keeps a baseline saveable
 * even when history.db is gone.
 */
export async function readRunOutcomes(stateDir: string, runIdOrPrefix: string): Promise<RunOutcomes> {
  const { runId, runDir } = await findRunDir(stateDir, runIdOrPrefix);
  const plan = await readPlanFile(runDir, runId);
  if (plan.kind === 'validate')
    throw new InputError(`run ${runId}: is a \`crucible validate\` run, not an agent run (fix: pass a run made by \`crucible run\`)`);
  const { entries } = await readCheckpoint(runDir);
  if (entries.length === 0)
    throw new InputError(`run ${runId}: has no finished attempts (fix: finish it with \`crucible resume ${runId}\`, or pass another run)`);
  const attempts: RunAttemptOutcome[] = [];
  for (const entry of entries) {
    const result = await readAttemptRecord(runDir, entry.attemptId);
    if (result === undefined) {
      const file = attemptRecordFile(runDir, entry.attemptId);
      throw new InputError(`run ${runId}: ${file} is missing or not JSON (fix: \`crucible resume ${runId}\` reruns it)`);
    }
    attempts.push(gateCellOf(result));
  }
  return { runId, runDir, plan, attempts };
}
