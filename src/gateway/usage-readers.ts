import type { SseEvent } from './sse.js';

/** The APIs the gateway meters; everything else passes through unmetered. */
export type MeteredApi = 'chat' | 'responses' | 'messages' | 'gemini';
export type Api = MeteredApi | 'other';

/** One response's tokens, normalised: input includes cache reads/writes, output includes reasoning. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
}

export interface UsageReading {
  model?: string;
  usage?: TokenUsage;
}

/** Reads usage out of one response, fed either its whole JSON body or its SSE events in order. */
export interface UsageReader {
  body(text: string): void;
  event(event: SseEvent): void;
  result(): UsageReading;
}

export function usageReader(api: MeteredApi): UsageReader {
  switch (api) {
    case 'chat':
      return new ChatCompletionsReader();
    case 'responses':
      return new ResponsesReader();
    case 'messages':
      return new MessagesReader();
    case 'gemini':
      return new GeminiReader();
  }
}

type Json = Record<string, unknown>;

function parseObject(text: string | undefined): Json | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) current = isObject(current) ? current[key] : undefined;
  return current;
}

function count(value: unknown, ...path: string[]): number | undefined {
  const n = field(value, ...path);
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}

function text(value: unknown, ...path: string[]): string | undefined {
  const s = field(value, ...path);
  return typeof s === 'string' && s !== '' ? s : undefined;
}

/** Chat Completions: prompt_tokens already includes cached_tokens. */
function fromChatUsage(usage: unknown): TokenUsage | undefined {
  const input = count(usage, 'prompt_tokens');
  const output = count(usage, 'completion_tokens');
  if (input === undefined || output === undefined) return undefined;
  return {
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: count(usage, 'prompt_tokens_details', 'cached_tokens') ?? 0,
    cacheWriteTokens: 0,
    reasoningTokens: count(usage, 'completion_tokens_details', 'reasoning_tokens') ?? 0,
  };
}

function fromResponsesUsage(usage: unknown): TokenUsage | undefined {
  const input = count(usage, 'input_tokens');
  const output = count(usage, 'output_tokens');
  if (input === undefined || output === undefined) return undefined;
  return {
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: count(usage, 'input_tokens_details', 'cached_tokens') ?? 0,
    cacheWriteTokens: 0,
    reasoningTokens: count(usage, 'output_tokens_details', 'reasoning_tokens') ?? 0,
  };
}

/** Anthropic's input_tokens excludes cache reads and writes, so they are added back. */
function fromAnthropicUsage(usage: unknown): TokenUsage | undefined {
  const uncached = count(usage, 'input_tokens');
  const output = count(usage, 'output_tokens');
  if (uncached === undefined || output === undefined) return undefined;
  const cacheRead = count(usage, 'cache_read_input_tokens') ?? 0;
  const cacheWrite = count(usage, 'cache_creation_input_tokens') ?? 0;
  return {
    inputTokens: uncached + cacheRead + cacheWrite,
    outputTokens: output,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: 0,
  };
}

/**
 * Gemini's promptTokenCount already includes cachedContentTokenCount; thoughtsTokenCount is billed
 * as output but not counted in candidatesTokenCount, so it is added; tool-use prompt tokens are input.
 */
function fromGeminiUsage(usage: unknown): TokenUsage | undefined {
  const prompt = count(usage, 'promptTokenCount');
  if (prompt === undefined) return undefined;
  const thoughts = count(usage, 'thoughtsTokenCount') ?? 0;
  return {
    inputTokens: prompt + (count(usage, 'toolUsePromptTokenCount') ?? 0),
    outputTokens: (count(usage, 'candidatesTokenCount') ?? 0) + thoughts,
    cacheReadTokens: count(usage, 'cachedContentTokenCount') ?? 0,
    cacheWriteTokens: 0,
    reasoningTokens: thoughts,
  };
}

class ChatCompletionsReader implements UsageReader {
  private reading: UsageReading = {};

  body(body: string): void {
    const json = parseObject(body);
    this.reading = { model: text(json, 'model'), usage: fromChatUsage(field(json, 'usage')) };
  }

  event(event: SseEvent): void {
    if (event.data === '[DONE]') return;
    const chunk = parseObject(event.data);
    if (!chunk) return;
    this.reading.model ??= text(chunk, 'model');
    // Groq reports streaming usage under x_groq; everyone else in the final chunk's usage.
    const usage = fromChatUsage(field(chunk, 'usage')) ?? fromChatUsage(field(chunk, 'x_groq', 'usage'));
    if (usage) this.reading.usage = usage;
  }

  result(): UsageReading {
    return this.reading;
  }
}

const RESPONSES_FINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

class ResponsesReader implements UsageReader {
  private reading: UsageReading = {};

  body(body: string): void {
    const json = parseObject(body);
    this.reading = { model: text(json, 'model'), usage: fromResponsesUsage(field(json, 'usage')) };
  }

  event(event: SseEvent): void {
    const data = parseObject(event.data);
    if (!data) return;
    this.reading.model ??= text(data, 'response', 'model');
    const type = text(data, 'type') ?? event.event;
    if (type !== undefined && RESPONSES_FINAL_EVENTS.has(type)) {
      const usage = fromResponsesUsage(field(data, 'response', 'usage'));
      if (usage) this.reading.usage = usage;
    }
  }

  result(): UsageReading {
    return this.reading;
  }
}

const ANTHROPIC_USAGE_FIELDS = ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'];

class MessagesReader implements UsageReader {
  private model: string | undefined;
  private usage: Json | undefined;

  body(body: string): void {
    const json = parseObject(body);
    this.model = text(json, 'model');
    const usage = field(json, 'usage');
    this.usage = isObject(usage) ? usage : undefined;
  }

  /** message_start carries the input side; each message_delta carries cumulative counts that win. */
  event(event: SseEvent): void {
    const data = parseObject(event.data);
    const type = text(data, 'type');
    if (type === 'message_start') {
      this.model ??= text(data, 'message', 'model');
      const usage = field(data, 'message', 'usage');
      if (isObject(usage)) this.usage = { ...usage };
    } else if (type === 'message_delta') {
      const delta = field(data, 'usage');
      if (!isObject(delta)) return;
      const merged: Json = { ...this.usage };
      for (const name of ANTHROPIC_USAGE_FIELDS) {
        if (typeof delta[name] === 'number') merged[name] = delta[name];
      }
      if (this.usage === undefined && merged['input_tokens'] === undefined) merged['input_tokens'] = 0;
      this.usage = merged;
    }
  }

  result(): UsageReading {
    return { model: this.model, usage: fromAnthropicUsage(this.usage) };
  }
}

/**
 * Gemini answers with GenerateContentResponse objects: one as the body, one per SSE event with
 * `alt=sse`, or a JSON array of them for a stream without it. Each carries the usage so far; the
 * last one that has usageMetadata wins.
 */
class GeminiReader implements UsageReader {
  private reading: UsageReading = {};

  body(body: string): void {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return;
    }
    for (const chunk of Array.isArray(value) ? value : [value]) this.chunk(chunk);
  }

  event(event: SseEvent): void {
    this.chunk(parseObject(event.data));
  }

  private chunk(chunk: unknown): void {
    if (!isObject(chunk)) return;
    this.reading.model ??= text(chunk, 'modelVersion');
    const usage = fromGeminiUsage(field(chunk, 'usageMetadata'));
    if (usage) this.reading.usage = usage;
  }

  result(): UsageReading {
    return this.reading;
  }
}
