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
  const state = newLoopState(o.instruction);
  o.trajectory.write({
    type: 'start',
    v: 1,
    model: o.modelName,
    system: o.system,
    instruction: o.instruction,
    tools: Object.keys(TOOL_DEFINITIONS),
    limits: { ...o.limits },
  });
  try {
    for (;;) {
      checkLimits(o, state);
      const calls = await askModel(o, state);
      if (calls.length === 0) nudgeOrStop(o, state);
      else await runCalls(o, state, calls);
    }
  } catch (error) {
    if (!(error instanceof LoopStop)) throw error;
    return finish(o, state, error);
  }
}

/** Ends the loop from wherever a limit or the agent's own stop is found; runLoop turns it into the result. */
class LoopStop extends Error {
  constructor(
    readonly stopReason: StopReason,
    readonly extra: Pick<AgentResult, 'error' | 'errorKind'> = {},
    readonly summary?: string,
  ) {
    super(extra.error ?? stopReason);
  }
}

const outOfTime = (): LoopStop => new LoopStop('timeout', { error: 'the agent ran out of time' });

interface LoopState {
  messages: ModelMessage[];
  usage: TurnUsage;
  timings: { modelMs: number; rateLimitWaitMs: number; toolMs: number; testMs: number };
  toolState: { testRuns: number };
  turns: number;
  requests: number;
  toolCalls: number;
  textOnlyInARow: number;
}

function newLoopState(instruction: string): LoopState {
  return {
    messages: [{ role: 'user', content: instruction }],
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    timings: { modelMs: 0, rateLimitWaitMs: 0, toolMs: 0, testMs: 0 },
    toolState: { testRuns: 0 },
    turns: 0,
    requests: 0,
    toolCalls: 0,
    textOnlyInARow: 0,
  };
}

/** Before each turn: out of time, out of turns, or over the token or cost budget. */
function checkLimits(o: LoopOptions, s: LoopState): void {
  if (o.signal.aborted) throw outOfTime();
  if (s.turns >= o.limits.maxTurns) throw new LoopStop('max_turns', { error: `reached the limit of ${o.limits.maxTurns} turns` });
  const overBudget = budgetReached(o, s.usage);
  if (overBudget) throw new LoopStop('budget_exceeded', { error: overBudget });
}

type ModelStep = Awaited<ReturnType<typeof generateText<typeof TOOL_DEFINITIONS>>>;

/**
 * One turn: the model asked (a provider's transient failure retried after its wait, up to the
 * policy's tries), its answer recorded and added to the conversation; returns the tools it calls.
 */
async function askModel(o: LoopOptions, s: LoopState): Promise<ModelStep['toolCalls']> {
  const retry = o.retry ?? DEFAULT_RETRY;
  const retries: Array<{ status?: number; waitMs: number; error: string }> = [];
  let step: ModelStep | undefined;
  let modelMs = 0;
  while (step === undefined) {
    const started = performance.now();
    try {
      s.requests++;
      step = await generateText({ model: o.model, system: o.system, messages: s.messages, tools: TOOL_DEFINITIONS, maxRetries: 0, abortSignal: o.signal });
      modelMs += performance.now() - started;
    } catch (error) {
      modelMs += performance.now() - started;
      s.timings.modelMs += Math.round(modelMs);
      if (o.signal.aborted) throw outOfTime();
      const failure = classifyModelError(error);
      if (!failure.retry)
        throw new LoopStop(failure.stop.stopReason, { error: failure.stop.error, ...(failure.stop.errorKind ? { errorKind: failure.stop.errorKind } : {}) });
      if (retries.length >= retry.maxRetries) {
        const error = `model provider still failing after ${retries.length + 1} tries (${failure.status ?? 'no status'}): ${failure.message}`;
        throw new LoopStop('error', { errorKind: 'harness', error });
      }
      const waitMs = retryDelayMs(retry, retries.length, failure.retryAfterMs);
      retries.push({ ...(failure.status !== undefined ? { status: failure.status } : {}), waitMs, error: failure.message });
      s.timings.rateLimitWaitMs += waitMs;
      modelMs = 0;
      if (!o.skipWaits) await (o.sleep ?? abortableSleep)(waitMs, o.signal).catch(() => undefined);
    }
  }
  s.timings.modelMs += Math.round(modelMs);
  // A turn is a model call that answered: failed and retried calls are requests, not turns.
  s.turns++;
  const turnUsage = toTurnUsage(step.usage);
  for (const key of Object.keys(s.usage) as Array<keyof TurnUsage>) s.usage[key] += turnUsage[key];
  o.trajectory.write({
    type: 'turn',
    turn: s.turns,
    ...(step.text ? { text: step.text } : {}),
    ...(step.reasoningText ? { reasoning: step.reasoningText } : {}),
    toolCalls: step.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, input: abbreviateInput(c.input) })),
    finishReason: step.finishReason,
    usage: turnUsage,
    modelMs: Math.round(modelMs),
    ...(retries.length > 0 ? { retries } : {}),
  });
  s.messages.push(...step.response.messages.filter((m) => m.role === 'assistant'));
  return step.toolCalls;
}

/** A reply with text only: nudged once to act or submit; a second in a row ends the loop. */
function nudgeOrStop(o: LoopOptions, s: LoopState): void {
  if (s.textOnlyInARow++ > 0) throw new LoopStop('end_turn');
  s.messages.push({ role: 'user', content: NUDGE });
  o.trajectory.write({ type: 'nudge', turn: s.turns, text: NUDGE });
}

/** The tools the model called, one at a time and in order, their results sent back; a submit ends the loop after them. */
async function runCalls(o: LoopOptions, s: LoopState, calls: ModelStep['toolCalls']): Promise<void> {
  s.textOnlyInARow = 0;
  const results: ToolResultPart[] = [];
  let submitted: { summary: string } | undefined;
  for (const call of calls) {
    if (o.signal.aborted) throw outOfTime();
    s.toolCalls++;
    const started = performance.now();
    const invalid = 'invalid' in call && call.invalid === true;
    const outcome =
      invalid || !isToolName(call.toolName)
        ? { ok: false, output: errorText('error' in call ? call.error : undefined, call.toolName) }
        : await runTool(o.tools, s.toolState, call.toolName, call.input).catch((error: unknown) => ({
            ok: false,
            output: `tool failed: ${errorText(error, call.toolName)}`,
          }));
    const ms = Math.round(performance.now() - started);
    if ('isTest' in outcome && outcome.isTest) s.timings.testMs += ms;
    else s.timings.toolMs += ms;
    if ('submitted' in outcome && outcome.submitted) submitted = outcome.submitted;
    results.push({
      type: 'tool-result',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: { type: outcome.ok ? 'text' : 'error-text', value: outcome.output },
    });
    const output = abbreviateOutput(outcome.output);
    o.trajectory.write({
      type: 'tool',
      turn: s.turns,
      id: call.toolCallId,
      name: call.toolName,
      input: abbreviateInput(call.input),
      ok: outcome.ok,
      output,
      outputChars: outcome.output.length,
      ms,
    });
  }
  s.messages.push({ role: 'tool', content: results });
  if (submitted) throw new LoopStop('submitted', {}, submitted.summary);
}

/** The agent's result from how the loop stopped, written as the trajectory's last line. */
function finish(o: LoopOptions, s: LoopState, stop: LoopStop): AgentResult {
  const { stopReason, extra, summary } = stop;
  const cost = o.costOf?.(s.usage);
  const result: AgentResult = {
    stopReason,
    usage: { ...s.usage, requests: s.requests, ...(cost !== undefined ? { costUsd: cost } : {}) } satisfies Usage,
    turns: s.turns,
    toolCalls: s.toolCalls,
    timings: { ...s.timings },
    ...extra,
  };
  o.trajectory.write({
    type: 'end',
    stopReason,
    turns: s.turns,
    toolCalls: s.toolCalls,
    usage: result.usage,
    timings: result.timings,
    ...extra,
    ...(summary ? { summary } : {}),
  });
  return result;
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
