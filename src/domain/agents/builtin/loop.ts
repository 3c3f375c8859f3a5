import { generateText, type LanguageModel, type LanguageModelUsage, type ModelMessage, type ToolResultPart } from 'ai';
import type { ModelLimits } from '../agent.js';
import type { AgentResult, StopReason, Usage } from '../../../core/types/index.js';
import { classifyModelError, DEFAULT_RETRY, retryDelayMs, type RetryPolicy } from './model-errors.js';
import { NUDGE } from './prompt.js';
import { isToolName, runTool, TOOL_DEFINITIONS, type ToolEnv } from './tools.js';
import { abbreviateInput, abbreviateOutput, type TrajectoryWriter, type TurnUsage } from './trajectory.js';

/**
 * The built-in agent: ask the model, run the tools it calls (one at a time, in order), send the
 * results back, until it submits, replies with text twice in a row (one nudge in between), or a
 * limit stops it. Tool errors go back to the model; only the model call itself can end an attempt
 * abnormally.
 */
export interface LoopOptions {
  model: LanguageModel;
  /** For the trajectory, e.g. `openai:gpt-4.1-mini`. */
  modelName: string;
  system: string;
  instruction: string;
  tools: ToolEnv;
  limits: ModelLimits;
  /** Cost of the attempt so far; undefined when the model has no price. */
  costOf?: (usage: TurnUsage) => number | undefined;
  signal: AbortSignal;
  trajectory: TrajectoryWriter;
  retry?: RetryPolicy;
  /** Waits before retries are recorded but not slept (a cassette answers at once). */
  skipWaits?: boolean;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export async function runLoop(o: LoopOptions): Promise<AgentResult> {
  const retry = o.retry ?? DEFAULT_RETRY;
  const sleep = o.sleep ?? abortableSleep;
  const messages: ModelMessage[] = [{ role: 'user', content: o.instruction }];
  const usage: TurnUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
  const timings = { modelMs: 0, rateLimitWaitMs: 0, toolMs: 0, testMs: 0 };
  const toolState = { testRuns: 0 };
  let turns = 0;
  let requests = 0;
  let toolCalls = 0;
  let textOnlyInARow = 0;

  o.trajectory.write({
    type: 'start',
    v: 1,
    model: o.modelName,
    system: o.system,
    instruction: o.instruction,
    tools: Object.keys(TOOL_DEFINITIONS),
    limits: { ...o.limits },
  });

  const finish = (stopReason: StopReason, extra: Pick<AgentResult, 'error' | 'errorKind'> = {}, summary?: string): AgentResult => {
    const cost = o.costOf?.(usage);
    const result: AgentResult = {
      stopReason,
      usage: { ...usage, requests, ...(cost !== undefined ? { costUsd: cost } : {}) } satisfies Usage,
      turns,
      toolCalls,
      timings: { ...timings },
      ...extra,
    };
    o.trajectory.write({ type: 'end', stopReason, turns, toolCalls, usage: result.usage, timings: result.timings, ...extra, ...(summary ? { summary } : {}) });
    return result;
  };

  for (;;) {
    if (o.signal.aborted) return finish('timeout', { error: 'the agent ran out of time' });
    if (turns >= o.limits.maxTurns) return finish('max_turns', { error: `reached the limit of ${o.limits.maxTurns} turns` });
    const overBudget = budgetReached(o, usage);
    if (overBudget) return finish('budget_exceeded', { error: overBudget });

    const retries: Array<{ status?: number; waitMs: number; error: string }> = [];
    let step: Awaited<ReturnType<typeof generateText<typeof TOOL_DEFINITIONS>>>;
    let modelMs = 0;
    for (;;) {
      const started = performance.now();
      try {
        requests++;
        step = await generateText({ model: o.model, system: o.system, messages, tools: TOOL_DEFINITIONS, maxRetries: 0, abortSignal: o.signal });
        modelMs += performance.now() - started;
        break;
      } catch (error) {
        modelMs += performance.now() - started;
        timings.modelMs += Math.round(modelMs);
        if (o.signal.aborted) return finish('timeout', { error: 'the agent ran out of time' });
        const failure = classifyModelError(error);
        if (!failure.retry)
          return finish(failure.stop.stopReason, { error: failure.stop.error, ...(failure.stop.errorKind ? { errorKind: failure.stop.errorKind } : {}) });
        if (retries.length >= retry.maxRetries) {
          return finish('error', {
            errorKind: 'harness',
            error: `model provider still failing after ${retries.length + 1} tries (${failure.status ?? 'no status'}): ${failure.message}`,
          });
        }
        const waitMs = retryDelayMs(retry, retries.length, failure.retryAfterMs);
        retries.push({ ...(failure.status !== undefined ? { status: failure.status } : {}), waitMs, error: failure.message });
        timings.rateLimitWaitMs += waitMs;
        modelMs = 0;
        if (!o.skipWaits) await sleep(waitMs, o.signal).catch(() => undefined);
      }
    }
    timings.modelMs += Math.round(modelMs);
    // A turn is a model call that answered: failed and retried calls are requests, not turns.
    turns++;

    const turnUsage = toTurnUsage(step.usage);
    for (const key of Object.keys(usage) as Array<keyof TurnUsage>) usage[key] += turnUsage[key];
    const calls = step.toolCalls;
    o.trajectory.write({
      type: 'turn',
      turn: turns,
      ...(step.text ? { text: step.text } : {}),
      ...(step.reasoningText ? { reasoning: step.reasoningText } : {}),
      toolCalls: calls.map((c) => ({ id: c.toolCallId, name: c.toolName, input: abbreviateInput(c.input) })),
      finishReason: step.finishReason,
      usage: turnUsage,
      modelMs: Math.round(modelMs),
      ...(retries.length > 0 ? { retries } : {}),
    });
    messages.push(...step.response.messages.filter((m) => m.role === 'assistant'));

    if (calls.length === 0) {
      if (textOnlyInARow++ > 0) return finish('end_turn');
      messages.push({ role: 'user', content: NUDGE });
      o.trajectory.write({ type: 'nudge', turn: turns, text: NUDGE });
      continue;
    }
    textOnlyInARow = 0;

    const results: ToolResultPart[] = [];
    let submitted: { summary: string } | undefined;
    for (const call of calls) {
      if (o.signal.aborted) return finish('timeout', { error: 'the agent ran out of time' });
      toolCalls++;
      const started = performance.now();
      const invalid = 'invalid' in call && call.invalid === true;
      const outcome =
        invalid || !isToolName(call.toolName)
          ? { ok: false, output: errorText('error' in call ? call.error : undefined, call.toolName) }
          : await runTool(o.tools, toolState, call.toolName, call.input).catch((error: unknown) => ({
              ok: false,
              output: `tool failed: ${errorText(error, call.toolName)}`,
            }));
      const ms = Math.round(performance.now() - started);
      if ('isTest' in outcome && outcome.isTest) timings.testMs += ms;
      else timings.toolMs += ms;
      if ('submitted' in outcome && outcome.submitted) submitted = outcome.submitted;
      results.push({
        type: 'tool-result',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: { type: outcome.ok ? 'text' : 'error-text', value: outcome.output },
      });
      o.trajectory.write({
        type: 'tool',
        turn: turns,
        id: call.toolCallId,
        name: call.toolName,
        input: abbreviateInput(call.input),
        ok: outcome.ok,
        output: abbreviateOutput(outcome.output),
        outputChars: outcome.output.length,
        ms,
      });
    }
    messages.push({ role: 'tool', content: results });
    if (submitted) return finish('submitted', {}, submitted.summary);
  }
}

function budgetReached(o: LoopOptions, usage: TurnUsage): string | undefined {
  const used = usage.inputTokens + usage.outputTokens;
  if (o.limits.maxTokens !== undefined && used >= o.limits.maxTokens) return `token budget reached (${used} of ${o.limits.maxTokens})`;
  if (o.limits.maxCostUsd !== undefined) {
    const cost = o.costOf?.(usage);
    if (cost !== undefined && cost >= o.limits.maxCostUsd) return `cost budget reached ($${cost.toFixed(4)} of $${o.limits.maxCostUsd})`;
  }
  return undefined;
}

/** The AI SDK's usage in the gateway's convention: input includes cache reads and writes, output includes reasoning. */
export function toTurnUsage(u: LanguageModelUsage): TurnUsage {
  return {
    inputTokens: u.inputTokens ?? 0,
    outputTokens: u.outputTokens ?? 0,
    cacheReadTokens: u.inputTokenDetails?.cacheReadTokens ?? u.cachedInputTokens ?? 0,
    cacheWriteTokens: u.inputTokenDetails?.cacheWriteTokens ?? 0,
    reasoningTokens: u.outputTokenDetails?.reasoningTokens ?? u.reasoningTokens ?? 0,
  };
}

function errorText(error: unknown, toolName: string): string {
  if (error instanceof Error) return error.message;
  return error === undefined ? `no tool named ${toolName}` : String(error);
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
