import type { AgentContext } from '../agent.js';
import { ORACLE_SCRIPT_ENV, oracleScriptArgv } from './oracle-script.js';

/**
 * Applies the task's oracle through the executor, like any agent's command: a patch with `git
 * apply`, a script executed in the workspace by its `#!` line (oracle-script.ts; its change is
 * captured afterwards like an agent's).
 * Undefined when it worked, else why not.
 */
export async function applyOraclePatch(ctx: AgentContext): Promise<string | undefined> {
  const oracle = ctx.task.oracle;
  if (oracle?.script !== undefined) return runOracleScript(ctx, oracle.script);
  const patch = oracle?.patch;
  if (!patch) return `task ${ctx.task.id} has no oracle (add oracle.patch or oracle.script to the task)`;
  return applyPatch(ctx, patch, 'oracle patch');
}

/**
 * `git apply`s a patch in the workspace through the executor (so it is logged and sandboxed like
 * any agent command). Undefined when it applied, else `<label> does not apply: <git's first line>`.
 */
export async function applyPatch(ctx: AgentContext, patch: string, label: string): Promise<string | undefined> {
  const applied = await applyPatchResult(ctx, patch, label);
  return applied.ok ? undefined : applied.error;
}

/**
 * applyPatch with who failed: `gitRefused` when git ran and exited non-zero (the patch is at
 * fault), false when git could not run or was killed (not started, a signal, a timeout).
 */
export async function applyPatchResult(
  ctx: AgentContext,
  patch: string,
  label: string,
): Promise<{ ok: true } | { ok: false; error: string; gitRefused: boolean }> {
  const applied = await ctx.executor.exec({
    argv: ['git', 'apply', '--whitespace=nowarn', '-'],
    cwd: ctx.workspace,
    stdin: patch,
    timeoutMs: Math.min(ctx.limits.timeoutMs, 60_000),
    network: 'none',
    signal: ctx.signal,
  });
  if (applied.exitCode === 0) return { ok: true };
  const gitRefused = applied.exitCode !== null && applied.notStarted === undefined && !applied.timedOut;
  if (gitRefused) return { ok: false, error: `${label} does not apply: ${applied.stderr.trim().split('\n')[0] ?? ''}`, gitRefused };
  const how = applied.notStarted ?? applied.signal ?? (applied.timedOut ? 'timed out' : 'no exit status');
  return { ok: false, error: `${label}: git apply did not run to the end (${how})`, gitRefused };
}

/**
 * The script gets the agent's whole time budget and no network: an oracle that needs a download
 * would make the task depend on the internet at grading time (put installs in setup or the image).
 */
async function runOracleScript(ctx: AgentContext, script: string): Promise<string | undefined> {
  const ran = await ctx.executor.exec({
    argv: await oracleScriptArgv(script, ctx.home),
    cwd: ctx.workspace,
    env: { ...ORACLE_SCRIPT_ENV },
    timeoutMs: ctx.limits.timeoutMs,
    network: 'none',
    signal: ctx.signal,
  });
  if (ran.timedOut) return `oracle script timed out after ${ctx.limits.timeoutMs} ms`;
  if (ran.exitCode !== 0) {
    const last = ran.stderr.trim().split('\n').pop() ?? '';
    return `oracle script failed (exit ${ran.exitCode ?? ran.signal ?? 'unknown'})${last ? `: ${last}` : ''}`;
  }
  return undefined;
}

/** Files the oracle patch changes (its `+++ b/…` paths); none for a script, which says nothing ahead. */
export function oraclePatchFiles(ctx: AgentContext): string[] {
  const patch = ctx.task.oracle?.patch ?? '';
  return [...patch.matchAll(/^\+\+\+ b\/(.+?)\t?$/gm)].map((m) => m[1] as string);
}
