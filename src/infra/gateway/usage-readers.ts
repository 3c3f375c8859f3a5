import type { SseEvent } from './sse.js';

/** The APIs the gateway meters; everything else passes through unmetered. */
export type MeteredApi = 'chat' | 'responses' | 'messages' | 'gemini' | 'converse';
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
  /**
   * Where the provider's usage contradicts itself (more cached than prompt tokens, more reasoning
   * than output tokens, a negative count, a total that is not input + output): each one sentence
   * naming the fields and their values. The counts in `usage` are as reported (a negative one as
   * 0); nothing is corrected silently, and the attempt says so.
   */
  anomalies?: string[];
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
    case 'converse':
      return new ConverseReader();
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

/**
 * Reads the counts of one usage object and notes where they contradict themselves. A count that
 * is missing or not a number is undefined; a negative one is noted and read as 0.
 */
class Counts {
  readonly anomalies: string[] = [];
  constructor(private readonly usage: unknown) {}

  get(...path: string[]): number | undefined {
    const n = field(this.usage, ...path);
    if (typeof n !== 'number' || !Number.isFinite(n)) return undefined;
    if (n < 0) {
      this.anomalies.push(`${path.join('.')} is negative (${n})`);
      return 0;
    }
    return n;
  }

  /** `part` (a field that is part of `whole`) must not exceed it. */
  notAbove(part: [string, number | undefined], whole: [string, number | undefined]): void {
    const [partName, partValue] = part;
    const [wholeName, wholeValue] = whole;
    if (partValue !== undefined && wholeValue !== undefined && partValue > wholeValue) {
      this.anomalies.push(`${partName} (${partValue}) is more than ${wholeName} (${wholeValue})`);
    }
  }

  /** A reported total must be the sum of its parts, when all are given. */
  sums(total: [string, number | undefined], parts: Array<[string, number | undefined]>): void {
    const [totalName, totalValue] = total;
    if (totalValue === undefined || parts.some(([, v]) => v === undefined)) return;
    const sum = parts.reduce((a, [, v]) => a + (v ?? 0), 0);
    if (sum !== totalValue) this.anomalies.push(`${totalName} (${totalValue}) is not ${parts.map(([name]) => name).join(' + ')} (${sum})`);
  }
}

/** One usage object read: the normalised counts (undefined when the required ones are missing) and any contradictions. */
interface ReadUsage {
  usage: TokenUsage | undefined;
  anomalies: string[];
}

function reading(model: string | undefined, read: ReadUsage | undefined): UsageReading {
  return { model, usage: read?.usage, ...(read && read.anomalies.length > 0 ? { anomalies: read.anomalies } : {}) };
}

function text(value: unknown, ...path: string[]): string | undefined {
  const s = field(value, ...path);
  return typeof s === 'string' && s !== '' ? s : undefined;
}

/** Chat Completions: prompt_tokens already includes cached_tokens. */
function fromChatUsage(usage: unknown): ReadUsage | undefined {
  if (usage === undefined || usage === null) return undefined;
  const c = new Counts(usage);
  const input = c.get('prompt_tokens');
  const output = c.get('completion_tokens');
  const cached = c.get('prompt_tokens_details', 'cached_tokens');
  const reasoning = c.get('completion_tokens_details', 'reasoning_tokens');
  c.notAbove(['prompt_tokens_details.cached_tokens', cached], ['prompt_tokens', input]);
  c.notAbove(['completion_tokens_details.reasoning_tokens', reasoning], ['completion_tokens', output]);
  c.sums(
    ['total_tokens', c.get('total_tokens')],
    [
      ['prompt_tokens', input],
      ['completion_tokens', output],
    ],
  );
  if (input === undefined || output === undefined) return undefined;
  return {
    usage: { inputTokens: input, outputTokens: output, cacheReadTokens: cached ?? 0, cacheWriteTokens: 0, reasoningTokens: reasoning ?? 0 },
    anomalies: c.anomalies,
  };
}

function fromResponsesUsage(usage: unknown): ReadUsage | undefined {
  if (usage === undefined || usage === null) return undefined;
  const c = new Counts(usage);
  const input = c.get('input_tokens');
  const output = c.get('output_tokens');
  const cached = c.get('input_tokens_details', 'cached_tokens');
  const reasoning = c.get('output_tokens_details', 'reasoning_tokens');
  c.notAbove(['input_tokens_details.cached_tokens', cached], ['input_tokens', input]);
  c.notAbove(['output_tokens_details.reasoning_tokens', reasoning], ['output_tokens', output]);
  c.sums(
    ['total_tokens', c.get('total_tokens')],
    [
      ['input_tokens', input],
      ['output_tokens', output],
    ],
  );
  if (input === undefined || output === undefined) return undefined;
  return {
    usage: { inputTokens: input, outputTokens: output, cacheReadTokens: cached ?? 0, cacheWriteTokens: 0, reasoningTokens: reasoning ?? 0 },
    anomalies: c.anomalies,
  };
}

/** Where a usage object that counts its input without the cache keeps each count. */
interface UncachedInputFields {
  input: string;
  output: string;
  cacheRead: string;
  cacheWrite: string;
}

/** Input counted without cache reads and writes, so they are added back; there is no total to check. */
function fromUncachedInputUsage(usage: unknown, names: UncachedInputFields): ReadUsage | undefined {
  if (usage === undefined || usage === null) return undefined;
  const c = new Counts(usage);
  const uncached = c.get(names.input);
  const output = c.get(names.output);
  const cacheRead = c.get(names.cacheRead) ?? 0;
  const cacheWrite = c.get(names.cacheWrite) ?? 0;
  if (uncached === undefined || output === undefined) return undefined;
  return {
    usage: {
      inputTokens: uncached + cacheRead + cacheWrite,
      outputTokens: output,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      reasoningTokens: 0,
    },
    anomalies: c.anomalies,
  };
}

const ANTHROPIC_FIELDS: UncachedInputFields = {
  input: 'input_tokens',
  output: 'output_tokens',
  cacheRead: 'cache_read_input_tokens',
  cacheWrite: 'cache_creation_input_tokens',
};

/**
 * Bedrock Converse counts like Anthropic. totalTokens is not checked: AWS documents it as input
 * plus output, and whether cached tokens are in it differs by model.
 */
const CONVERSE_FIELDS: UncachedInputFields = {
  input: 'inputTokens',
  output: 'outputTokens',
  cacheRead: 'cacheReadInputTokens',
  cacheWrite: 'cacheWriteInputTokens',
};

function fromAnthropicUsage(usage: unknown): ReadUsage | undefined {
  return fromUncachedInputUsage(usage, ANTHROPIC_FIELDS);
}

/**
 * Gemini's promptTokenCount already includes cachedContentTokenCount; thoughtsTokenCount is billed
 * as output but not counted in candidatesTokenCount, so it is added; tool-use prompt tokens are input.
 */
function fromGeminiUsage(usage: unknown): ReadUsage | undefined {
  if (usage === undefined || usage === null) return undefined;
  const c = new Counts(usage);
  const prompt = c.get('promptTokenCount');
  if (prompt === undefined) return undefined;
  const thoughts = c.get('thoughtsTokenCount') ?? 0;
  const candidates = c.get('candidatesTokenCount') ?? 0;
  const toolPrompt = c.get('toolUsePromptTokenCount') ?? 0;
  const cached = c.get('cachedContentTokenCount');
  c.notAbove(['cachedContentTokenCount', cached], ['promptTokenCount', prompt]);
  c.sums(
    ['totalTokenCount', c.get('totalTokenCount')],
    [
      ['promptTokenCount', prompt],
      ['toolUsePromptTokenCount', toolPrompt],
      ['candidatesTokenCount', candidates],
      ['thoughtsTokenCount', thoughts],
    ],
  );
  return {
    usage: {
      inputTokens: prompt + toolPrompt,
      outputTokens: candidates + thoughts,
      cacheReadTokens: cached ?? 0,
      cacheWriteTokens: 0,
      reasoningTokens: thoughts,
    },
    anomalies: c.anomalies,
  };
}

/** Converse answers with one JSON body and names no model (it is in the request's path). */
class ConverseReader implements UsageReader {
  private read: ReadUsage | undefined;

  body(body: string): void {
    this.read = fromUncachedInputUsage(field(parseObject(body), 'usage'), CONVERSE_FIELDS);
  }

  /** converse-stream: the `metadata` event, after messageStop, carries the usage. */
  event(event: SseEvent): void {
    if (event.event !== 'metadata') return;
    this.read = fromUncachedInputUsage(field(parseObject(event.data), 'usage'), CONVERSE_FIELDS) ?? this.read;
  }

  result(): UsageReading {
    return reading(undefined, this.read);
  }
}

class ChatCompletionsReader implements UsageReader {
  private model: string | undefined;
  private read: ReadUsage | undefined;

  body(body: string): void {
    const json = parseObject(body);
    this.model = text(json, 'model');
    this.read = fromChatUsage(field(json, 'usage'));
  }

  event(event: SseEvent): void {
    if (event.data === '[DONE]') return;
    const chunk = parseObject(event.data);
    if (!chunk) return;
    this.model ??= text(chunk, 'model');
    // Groq reports streaming usage under x_groq; everyone else in the final chunk's usage.
    const usage = fromChatUsage(field(chunk, 'usage')) ?? fromChatUsage(field(chunk, 'x_groq', 'usage'));
    if (usage) this.read = usage;
  }

  result(): UsageReading {
    return reading(this.model, this.read);
  }
}

const RESPONSES_FINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

class ResponsesReader implements UsageReader {
  private model: string | undefined;
  private read: ReadUsage | undefined;

  body(body: string): void {
    const json = parseObject(body);
    this.model = text(json, 'model');
    this.read = fromResponsesUsage(field(json, 'usage'));
  }

  event(event: SseEvent): void {
    const data = parseObject(event.data);
    if (!data) return;
    this.model ??= text(data, 'response', 'model');
    const type = text(data, 'type') ?? event.event;
    if (type !== undefined && RESPONSES_FINAL_EVENTS.has(type)) {
      const usage = fromResponsesUsage(field(data, 'response', 'usage'));
      if (usage) this.read = usage;
    }
  }

  result(): UsageReading {
    return reading(this.model, this.read);
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

  /**
   * message_start carries the input side; each message_delta carries cumulative counts that win.
   * On Bedrock, message_stop adds `amazon-bedrock-invocationMetrics`: the counts AWS bills, used
   * when the stream carried no usage of its own.
   */
  event(event: SseEvent): void {
    const data = parseObject(event.data);
    const type = text(data, 'type');
    if (type === 'message_stop') {
      const metrics = field(data, 'amazon-bedrock-invocationMetrics');
      if (this.usage === undefined && isObject(metrics)) this.usage = fromInvocationMetrics(metrics);
    } else if (type === 'message_start') {
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
    return reading(this.model, fromAnthropicUsage(this.usage));
  }
}

/** Bedrock's invocation metrics in Anthropic's usage names (input uncached, cache reads and writes apart). */
function fromInvocationMetrics(metrics: Json): Json {
  const names: Array<[string, string]> = [
    ['inputTokenCount', 'input_tokens'],
    ['outputTokenCount', 'output_tokens'],
    ['cacheReadInputTokenCount', 'cache_read_input_tokens'],
    ['cacheWriteInputTokenCount', 'cache_creation_input_tokens'],
  ];
  return Object.fromEntries(names.filter(([from]) => metrics[from] !== undefined).map(([from, to]) => [to, metrics[from]]));
}

/**
 * Gemini answers with GenerateContentResponse objects: one as the body, one per SSE event with
 * `alt=sse`, or a JSON array of them for a stream without it. Each carries the usage so far; the
 * last one that has usageMetadata wins.
 */
class GeminiReader implements UsageReader {
  private model: string | undefined;
  private read: ReadUsage | undefined;

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
    this.model ??= text(chunk, 'modelVersion');
    const usage = fromGeminiUsage(field(chunk, 'usageMetadata'));
    if (usage) this.read = usage;
  }

  result(): UsageReading {
    return reading(this.model, this.read);
  }
}
