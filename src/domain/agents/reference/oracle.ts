import type { Agent } from '../agent.js';
import { applyOraclePatch } from './oracle-patch.js';

/** Applies the task's known-good patch: every task must pass under it, or the task is broken. */
export const oracleAgent: Agent = {
  name: 'oracle',
  async run(ctx) {
    const error = await applyOraclePatch(ctx);
    // A patch that does not apply is the task's defect, not a failing agent (the run's preflight
    // normally finds it before any attempt; this is the net behind it).
    return error ? { stopReason: 'error', error, errorKind: 'task' } : { stopReason: 'completed' };
  },
};
