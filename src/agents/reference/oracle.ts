import type { Agent } from '../agent.js';
import { applyOraclePatch } from './oracle-patch.js';

/** Applies the task's known-good patch: every task must pass under it, or the task is broken. */
export const oracleAgent: Agent = {
  name: 'oracle',
  async run(ctx) {
    const error = await applyOraclePatch(ctx);
    return error ? { stopReason: 'error', error } : { stopReason: 'completed' };
  },
};
