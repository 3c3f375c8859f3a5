import type { Agent } from '../agent.js';
import { applyPatchResult } from './oracle-patch.js';

/**
 * An agent that is a set of patches made elsewhere (`crucible grade`): for each task it applies
 * that task's patch, the way `oracle` applies the task's own, and the attempt is then graded like
 * any other. A patch git refuses is this agent's failure (the model's patch is wrong), never the
 * task's or the harness's, with a cause of its own (`patch_not_applied`, errorKind `patch`); git
 * that could not run at all is the harness's. An empty patch changes nothing and fails as `no_changes`.
 */
export function createPatchAgent(name: string, patches: ReadonlyMap<string, string>): Agent {
  return {
    name,
    async run(ctx) {
      const patch = patches.get(ctx.task.id);
      if (patch === undefined) return { stopReason: 'error', error: `${name} has no patch for task ${ctx.task.id}` };
      if (patch.trim() === '') return { stopReason: 'completed' };
      const applied = await applyPatchResult(ctx, patch.endsWith('\n') ? patch : `${patch}\n`, 'the patch');
      if (applied.ok) return { stopReason: 'completed' };
      return { stopReason: 'error', error: applied.error, errorKind: applied.gitRefused ? 'patch' : 'harness' };
    },
  };
}
