import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Agent } from '../agent.js';
import { applyPatchResult } from './oracle-patch.js';

/**
 * The patch as it was submitted, kept in the attempt directory (and so in its manifest): what
 * `crucible export --format swe-bench` writes as model_patch, byte for byte, where git's own diff
 * of the change would differ in its headers and context.
 */
export const SUBMITTED_PATCH_FILE = 'submitted.patch';

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
      await writeFile(join(ctx.attemptDir, SUBMITTED_PATCH_FILE), patch);
      if (patch.trim() === '') return { stopReason: 'completed' };
      const applied = await applyPatchResult(ctx, patch.endsWith('\n') ? patch : `${patch}\n`, 'the patch');
      if (applied.ok) return { stopReason: 'completed' };
      return { stopReason: 'error', error: applied.error, errorKind: applied.gitRefused ? 'patch' : 'harness' };
    },
  };
}
