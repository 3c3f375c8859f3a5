import type { Agent } from '../agent.js';
import { applyPatch } from './oracle-patch.js';

/**
 * An agent that is a set of patches made elsewhere (`crucible grade`): for each task it applies
 * that task's patch, the way `oracle` applies the task's own, and the attempt is then graded like
 * any other. A patch that does not apply is this agent's failure (the model's patch is wrong),
 * never the task's or the harness's; an empty patch changes nothing and fails as `no_changes`.
 */
export function createPatchAgent(name: string, patches: ReadonlyMap<string, string>): Agent {
  return {
    name,
    async run(ctx) {
      const patch = patches.get(ctx.task.id);
      if (patch === undefined) return { stopReason: 'error', error: `${name} has no patch for task ${ctx.task.id}` };
      if (patch.trim() === '') return { stopReason: 'completed' };
      const error = await applyPatch(ctx, patch.endsWith('\n') ? patch : `${patch}\n`, 'the patch');
      return error ? { stopReason: 'error', error } : { stopReason: 'completed' };
    },
  };
}
