import type { Agent } from '../../domain/agents/index.js';
import { createPatchAgent } from '../../domain/agents/index.js';
import { InputError } from '../../core/errors.js';
import { nearestId } from '../../core/format/index.js';
import type { Task } from '../../core/types/index.js';
import type { Prediction } from './predictions.js';

/** What `crucible grade` hands the run engine: the tasks and agents the predictions cover, and which pairs to plan. */
export interface GradePlan {
  /** Tasks that have at least one prediction, in task-set order. */
  tasks: Task[];
  /** One agent per model, in the order the predictions first name them. */
  agents: string[];
  /** Only (task, model) pairs with a prediction are attempts. */
  only: (taskId: string, agent: string) => boolean;
  /** The patch-applying agent of each model. */
  resolveAgent: (spec: string) => Agent;
  /** Predictions left out because their task is not in the task set (`--skip-unknown`). */
  skipped: Prediction[];
}

/**
 * Matches predictions to the task set's tasks. A prediction for a task the set does not have is
 * bad input (naming where it is, and the nearest task id), unless `skipUnknown` leaves it out.
 */
export function planGrade(tasks: readonly Task[], predictions: readonly Prediction[], options: { skipUnknown?: boolean; taskSetFile: string }): GradePlan {
  const ids = new Set(tasks.map((t) => t.id));
  const skipped: Prediction[] = [];
  const patches = new Map<string, Map<string, string>>();
  for (const p of predictions) {
    if (!ids.has(p.taskId)) {
      if (options.skipUnknown) {
        skipped.push(p);
        continue;
      }
      const near = nearestId(p.taskId, [...ids]);
      throw new InputError(
        `${p.where}: instance_id ${p.taskId} is not a task of ${options.taskSetFile} (fix: ${near ? `did you mean ${near}? ` : ''}use one of its task ids, or pass --skip-unknown to grade only the predictions it has tasks for)`,
      );
    }
    const byTask = patches.get(p.model) ?? new Map<string, string>();
    byTask.set(p.taskId, p.patch);
    patches.set(p.model, byTask);
  }
  if (patches.size === 0)
    throw new InputError(`no prediction is for a task of ${options.taskSetFile} (fix: check the instance_id values against its task ids)`);
  const covered = new Set([...patches.values()].flatMap((m) => [...m.keys()]));
  const agents = new Map([...patches].map(([model, byTask]) => [model, createPatchAgent(model, byTask)]));
  return {
    tasks: tasks.filter((t) => covered.has(t.id)),
    agents: [...agents.keys()],
    only: (taskId, agent) => patches.get(agent)?.has(taskId) ?? false,
    resolveAgent: (spec) => {
      const agent = agents.get(spec);
      if (!agent) throw new InputError(`agent ${spec}: no predictions of that model in this grading run`);
      return agent;
    },
    skipped,
  };
}
