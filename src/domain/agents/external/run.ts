import { access, constants, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AgentContext } from '../agent.js';
import type { AgentResult } from '../../../core/types/index.js';
import type { ExecResult } from '../../../infra/sandbox/index.js';
import { buildInvocation } from './invocation.js';
import type { ResolvedProgram } from './install.js';
import { parseAgentOutput } from './outputs/index.js';
import type { AgentProfile } from './profile.js';
import { externalAgentResult } from './result.js';
import { writeExternalTrajectory } from './trajectory.js';

/** One profile on one model, with its program resolved by the run's prepare step. */
export interface ExternalSetup {
  profile: AgentProfile;
  spec: string;
  model: string;
  /** The gateway upstream (provider) the protocol is metered on; its base URL is the agent's. */
  upstream: string;
  program: ResolvedProgram;
}

/** The instruction as a file, for `{task_file}`: in HOME, the one place outside the workspace the sandbox shows. */
export const TASK_FILE = 'crucible-task.md';
/** Agents print whole transcripts (stream-json): far more than a test command's output. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/**
 * Runs the agent's program once in the executor (the sandbox) with the gateway as its only
 * network, and turns what it did into the attempt's result: stop reason, turns, the commands it
 * reports (added to the command log), and trajectory.jsonl. The gateway's metering, applied by the
 * engine after this returns, is the attempt's usage.
 */
export async function runExternalAgent(setup: ExternalSetup, ctx: AgentContext): Promise<AgentResult> {
  const access_ = ctx.model;
  if (!access_) throw new Error(`agent ${setup.spec}: no gateway session (the engine opens one for agents with a modelSpec)`);
  const baseUrl = access_.baseUrls[setup.upstream];
  if (baseUrl === undefined) throw new Error(`agent ${setup.spec}: the gateway has no upstream ${setup.upstream}`);
  const harness = (error: string): AgentResult => ({ stopReason: 'error', errorKind: 'harness', error });
  if (!(await isExecutable(setup.program.argv0))) return harness(`agent ${setup.spec}: program ${setup.program.argv0} is missing or not executable`);

  const home = ctx.home ?? join(ctx.attemptDir, 'home');
  const taskFile = join(home, TASK_FILE);
  const invocation = buildInvocation({
    profile: setup.profile,
    argv0: setup.program.argv0,
    model: setup.model,
    instruction: ctx.instruction,
    workspace: ctx.workspace,
    home,
    taskFile,
    baseUrl,
    apiKey: access_.apiKey,
    hostEnv: process.env,
  });
  await mkdir(home, { recursive: true });
  await writeFile(taskFile, ctx.instruction);
  for (const file of invocation.homeFiles) {
    await mkdir(dirname(file.path), { recursive: true });
    await writeFile(file.path, file.content);
  }

  let exec: ExecResult;
  const startedAt = Date.now();
  try {
    exec = await ctx.executor.exec({
      argv: invocation.argv,
      cwd: ctx.workspace,
      env: invocation.env,
      ...(invocation.stdin !== undefined ? { stdin: invocation.stdin } : {}),
      timeoutMs: ctx.limits.timeoutMs,
      network: 'gateway',
      signal: ctx.signal,
      maxOutputBytes: MAX_OUTPUT_BYTES,
    });
  } catch (error) {
    if (ctx.signal.aborted) return { stopReason: 'timeout', error: 'stopped before the agent started' };
    throw error;
  }
  // What the agent printed is kept (logs, parsed tools and commands, the trajectory), but not the
  // values of host variables its profile passed through to it: names only, as everywhere else.
  const redact = redactor(setup.profile, process.env);
  exec = { ...exec, stdout: redact(exec.stdout), stderr: redact(exec.stderr) };
  await writeFile(join(ctx.attemptDir, 'agent-stdout.log'), exec.stdout);
  await writeFile(join(ctx.attemptDir, 'agent-stderr.log'), exec.stderr);

  const parsed = parseAgentOutput(setup.profile.output, exec.stdout);
  ctx.reportCommands?.(parsed.commands);
  const turns = access_.turns?.() ?? [];
  const result = externalAgentResult(exec, parsed, ctx.signal.aborted, turns);
  writeExternalTrajectory({
    startedAt,
    attemptDir: ctx.attemptDir,
    spec: setup.spec,
    instruction: ctx.instruction,
    limits: { timeoutMs: ctx.limits.timeoutMs, maxTurns: access_.limits.maxTurns, maxTokens: access_.limits.maxTokens, maxCostUsd: access_.limits.maxCostUsd },
    turns,
    parsed,
    result,
  });
  return result;
}

/** Values shorter than this are not secrets worth the false hits (`LANG=C`). */
const MIN_REDACTED_CHARS = 8;

function redactor(profile: AgentProfile, hostEnv: Readonly<Record<string, string | undefined>>): (text: string) => string {
  const values = profile.env
    .map((name) => [name, hostEnv[name] ?? ''] as const)
    .filter(([, value]) => value.length >= MIN_REDACTED_CHARS)
    .sort((a, b) => b[1].length - a[1].length);
  return (text) => values.reduce((out, [name, value]) => out.split(value).join(`[${name} redacted]`), text);
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
