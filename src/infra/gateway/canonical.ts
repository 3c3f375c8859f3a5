import { createHash } from 'node:crypto';
import { bedrockCall, geminiCall, vertexAnthropicCall } from './upstreams.js';
import type { Api } from './usage-readers.js';

/**
 * The parts of a request that decide the model's answer. Ids, `user`, `metadata`, headers and JSON
 * key order are left out so a re-run of the same agent on the same task maps to the same hash.
 */
export type CanonicalRequest = { upstream: string; method: string; path: string } & Record<string, unknown>;

const ANSWER_FIELDS: Record<Exclude<Api, 'other'>, readonly string[]> = {
  chat: [
    'model',
    'messages',
    'tools',
    'tool_choice',
    'functions',
    'function_call',
    'temperature',
    'top_p',
    'max_tokens',
    'max_completion_tokens',
    'response_format',
    'reasoning_effort',
    'stop',
    'n',
  ],
  responses: ['model', 'input', 'instructions', 'tools', 'tool_choice', 'temperature', 'top_p', 'max_output_tokens', 'text', 'reasoning'],
  messages: ['model', 'system', 'messages', 'tools', 'tool_choice', 'temperature', 'top_p', 'top_k', 'max_tokens', 'thinking', 'stop_sequences'],
  // The model and whether it streams are in the path (`/v1beta/models/<model>:streamGenerateContent`).
  gemini: ['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig'],
  // The model is in the path (`/model/<id>/converse` or `/converse-stream`).
  converse: ['messages', 'system', 'toolConfig', 'inferenceConfig', 'additionalModelRequestFields', 'guardrailConfig', 'performanceConfig'],
};

export interface RequestFacts {
  upstream: string;
  method: string;
  /** Path as the client sent it below the upstream prefix, e.g. `/v1/messages?beta=true`. */
  pathWithQuery: string;
  api: Api;
  body: Buffer;
  /** The body parsed, when it is a JSON object. */
  json?: Record<string, unknown>;
}

export function canonicalRequest(facts: RequestFacts): CanonicalRequest {
  const { upstream, method, pathWithQuery, api, body, json } = facts;
  if (api === 'other' || json === undefined) {
    const canonical: CanonicalRequest = { upstream, method, path: pathWithQuery };
    if (body.length > 0) canonical['body'] = json ?? body.toString('utf8');
    return sortKeys(canonical) as CanonicalRequest;
  }
  // The query (e.g. Claude Code's ?beta=true, Gemini's ?alt=sse) does not change the answer of a metered API.
  const path = pathWithQuery.split('?')[0] ?? '';
  const gemini = api === 'gemini' ? geminiCall(path) : undefined;
  const canonical: CanonicalRequest = { upstream, method, path, stream: gemini ? gemini.stream : json['stream'] === true };
  if (gemini) canonical['model'] = gemini.model;
  // Bedrock's and Vertex's Claude calls name the model and whether they stream in the path only.
  const inPath = bedrockCall(path) ?? vertexAnthropicCall(path);
  if (inPath && !gemini) {
    canonical['model'] = inPath.model;
    canonical['stream'] = inPath.stream;
  }
  for (const name of ANSWER_FIELDS[api]) {
    if (json[name] !== undefined && json[name] !== null) canonical[name] = json[name];
  }
  return sortKeys(withoutClientIds(canonical)) as CanonicalRequest;
}

/**
 * The canonical request without the ids clients make up for items they send back: applied to
 * every request and, on load, to recorded ones, so recordings made before it still match.
 */
export function withoutClientIds(canonical: CanonicalRequest): CanonicalRequest {
  const out: CanonicalRequest = { ...canonical };
  if (Array.isArray(out['input'])) out['input'] = out['input'].map(withoutItemId);
  if (Array.isArray(out['contents'])) out['contents'] = out['contents'].map(withoutCallIds);
  return out;
}

/**
 * A Gemini content without the ids of its function calls and responses: the API sends none, so
 * clients such as Gemini CLI make them up from the clock (`read_file_1796107238053_0`); they pair a
 * call with its response inside the client and never change the answer.
 */
function withoutCallIds(content: unknown): unknown {
  if (typeof content !== 'object' || content === null || Array.isArray(content)) return content;
  const record = content as Record<string, unknown>;
  if (!Array.isArray(record['parts'])) return content;
  const parts = record['parts'].map((part: unknown) => {
    if (typeof part !== 'object' || part === null) return part;
    const out: Record<string, unknown> = { ...(part as Record<string, unknown>) };
    for (const key of ['functionCall', 'functionResponse']) {
      const call = out[key];
      if (typeof call === 'object' && call !== null && 'id' in call) {
        const { id: _id, ...rest } = call as Record<string, unknown>;
        out[key] = rest;
      }
    }
    return out;
  });
  return { ...record, parts };
}

/**
 * A Responses input item without its `id`: clients such as Codex send back every earlier item
 * under a fresh random id (`msg_…`, `fco_…`), which names the item, not what the model should answer.
 * `call_id`, which pairs a tool call with its output, is kept.
 */
function withoutItemId(item: unknown): unknown {
  if (typeof item !== 'object' || item === null || Array.isArray(item) || !('id' in item)) return item;
  const { id: _id, ...rest } = item as Record<string, unknown>;
  return rest;
}

export function requestHash(canonical: CanonicalRequest): string {
  return createHash('sha256').update(stableStringify(canonical)).digest('hex');
}

export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

/**
 * The request with the content of every tool result blanked (Chat Completions `tool` messages,
 * Responses `*_output` items, Anthropic `tool_result` and Converse `toolResult` blocks, Gemini `functionResponse` parts). Replay falls back to it when the
 * exact request is not in the cassette: the same conversation whose tool output differs — a test
 * runner printing differently on another machine — still gets the recorded answer, counted as a
 * loose match.
 */
export function withoutToolOutputs(canonical: CanonicalRequest): CanonicalRequest {
  const blank = (item: unknown): unknown => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
    const record = item as Record<string, unknown>;
    if (record['role'] === 'tool') return { ...record, content: '' };
    if (typeof record['type'] === 'string' && record['type'].endsWith('_output') && 'output' in record) return { ...record, output: '' };
    if (record['role'] === 'user' && Array.isArray(record['content'])) {
      return { ...record, content: record['content'].map(blankToolResult) };
    }
    if (Array.isArray(record['parts'])) return { ...record, parts: record['parts'].map(blankFunctionResponse) };
    return item;
  };
  const out: CanonicalRequest = { ...canonical };
  for (const field of ['messages', 'input', 'contents']) {
    const list = canonical[field];
    if (Array.isArray(list)) out[field] = list.map(blank);
  }
  return out;
}

/** Keeps the function's name and id (they say which call it answers), drops what it returned. */
function blankFunctionResponse(part: unknown): unknown {
  if (typeof part !== 'object' || part === null) return part;
  const response = (part as Record<string, unknown>)['functionResponse'];
  if (typeof response !== 'object' || response === null) return part;
  return { ...part, functionResponse: { ...response, response: {} } };
}

/** Anthropic's `{type: 'tool_result', content}` and Bedrock Converse's `{toolResult: {toolUseId, content}}`, their content dropped. */
function blankToolResult(block: unknown): unknown {
  if (typeof block !== 'object' || block === null) return block;
  const record = block as Record<string, unknown>;
  if (record['type'] === 'tool_result') return { ...record, content: '' };
  const result = record['toolResult'];
  if (typeof result === 'object' && result !== null) return { ...record, toolResult: { ...result, content: [] } };
  return block;
}
