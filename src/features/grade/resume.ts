import { existsSync } from 'node:fs';
import type { RunPlanFile } from '../../engine/index.js';
import { InputError } from '../../core/errors.js';
import type { Task } from '../../core/types/index.js';
import { planGrade, type GradePlan } from './plan.js';
import { predictionsDigest, readPredictions } from './predictions.js';

/**
 * What `crucible resume` needs of a grading run: its agents again, from the predictions plan.json
 * names, which must be the ones it started with (their digest is in the config hash).
 */
export function gradeResume(plan: RunPlanFile, tasks: readonly Task[]): Pick<GradePlan, 'only' | 'resolveAgent'> {
  const ref = plan.predictions;
  if (ref === undefined) throw new Error(`run ${plan.runId} is not a grading run`);
  if (!existsSync(ref.path)) throw new InputError(`run ${plan.runId}: its predictions ${ref.path} are gone (fix: restore them, or grade again as a new run)`);
  const predictions = readPredictions(ref.path, ref.modelName === undefined ? {} : { modelName: ref.modelName });
  if (predictionsDigest(predictions) !== ref.sha256)
    throw new InputError(`run ${plan.runId}: its predictions ${ref.path} changed since the run started (fix: restore them, or grade them as a new run)`);
  // Predictions the run left out (--skip-unknown) stay left out.
  const { only, resolveAgent } = planGrade(tasks, predictions, { taskSetFile: plan.taskSet, skipUnknown: true });
  return { only, resolveAgent };
}
