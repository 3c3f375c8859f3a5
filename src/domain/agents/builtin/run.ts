import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentContext } from '../agent.js';
import type { ModelSpec } from '../models/providers.js';
import type { AgentResult } from '../../../core/types/index.js';
import { runLoop } from './loop.js';
import { createLanguageModel } from './model.js';
import { SYSTEM_PROMPT } from './prompt.js';
import { TRAJECTORY_FILE, trajectoryWriter } from './trajectory.js';

/** One attempt of the built-in agent: the model behind the gateway, the tools behind the sandbox. */
export async function runModelAgent(spec: ModelSpec, ctx: AgentContext): Promise<AgentResult> {
  const access = ctx.model;
  if (!access) return { stopReason: 'error', errorKind: 'harness', error: `${spec.spec}: no model gateway session for this attempt` };
  const started = performance.now();
  const [realWorkspace, realAttemptDir] = await Promise.all([realpath(ctx.workspace), realpath(ctx.attemptDir)]);
  return runLoop({
    model: await createLanguageModel(spec, access),
    modelName: spec.spec,
    system: SYSTEM_PROMPT,
    instruction: ctx.instruction,
    tools: {
      root: ctx.workspace,
      executor: ctx.executor,
      signal: ctx.signal,
      testCommand: ctx.task.tests.command,
      testTimeoutMs: ctx.task.limits.testTimeoutMs,
      maxTestRuns: access.limits.maxTestRuns,
      // The attempt's paths differ on every run; the model sees them as "." and "<attempt>".
      pathAliases: [
        [ctx.workspace, '.'],
        [realWorkspace, '.'],
        [ctx.attemptDir, '<attempt>'],
        [realAttemptDir, '<attempt>'],
      ],
      remainingMs: () => ctx.limits.timeoutMs - (performance.now() - started),
    },
    limits: access.limits,
    costOf: access.pricing ? (usage) => access.pricing?.costOf(spec.modelId, usage) : undefined,
    signal: ctx.signal,
    trajectory: trajectoryWriter(join(ctx.attemptDir, TRAJECTORY_FILE)),
    skipWaits: access.replaying === true,
  });
}
