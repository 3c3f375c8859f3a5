import type { AgentContext } from '../agent.js';

/** Applies the task's oracle patch through the executor; undefined when applied, else why not. */
export async function applyOraclePatch(ctx: AgentContext): Promise<string | undefined> {
  const patch = ctx.task.oracle?.patch;
  if (!patch) return `task ${ctx.task.id} has no oracle patch (add oracle.patch to the task)`;
  const applied = await ctx.executor.exec({
    argv: ['git', 'apply', '--whitespace=nowarn', '-'],
    cwd: ctx.workspace,
    stdin: patch,
    timeoutMs: Math.min(ctx.limits.timeoutMs, 60_000),
    network: 'none',
    signal: ctx.signal,
  });
  if (applied.exitCode !== 0) return `oracle patch does not apply: ${applied.stderr.trim().split('\n')[0] ?? ''}`;
  return undefined;
}

/** Files the oracle patch changes (its `+++ b/…` paths). */
export function oraclePatchFiles(ctx: AgentContext): string[] {
  const patch = ctx.task.oracle?.patch ?? '';
  return [...patch.matchAll(/^\+\+\+ b\/(.+?)\t?$/gm)].map((m) => m[1] as string);
}
