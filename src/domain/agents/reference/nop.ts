import type { Agent } from '../agent.js';

/** Changes nothing: every task's fail-to-pass tests must fail under it, or the task is broken. */
export const nopAgent: Agent = {
  name: 'nop',
  run: async () => ({ stopReason: 'completed' }),
};
