import type { Agent } from '../agent.js';

/** Applies the task's known-good patch: every task must pass under it, or the task is broken. */
export const oracleAgent: Agent = {
  name: 'oracle',
  async run(ctx) {
    const patch = ctx.task.oracle?.patch;
    if (!patch) return { stopReason: 'error', error: `task ${ctx.task.id} has no oracle patch (add oracle.patch to the task)` };
    const applied = await ctx.executor.exec({
      argv: ['git', 'apply', '--whitespace=nowarn', '-'],
      cwd: ctx.workspace,
      stdin: patch,
      timeoutMs: Math.min(ctx.limits.timeoutMs, 60_000),
      network: 'none',
      signal: ctx.signal,
    });
    if (applied.exitCode !== 0) {
      return { stopReason: 'error', error: `oracle patch does not apply: ${applied.stderr.trim().split('\n')[0] ?? ''}` };
    }
    return { stopReason: 'completed' };
  },
};
