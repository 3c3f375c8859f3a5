import { abbreviate } from './turn-readers.js';
import type { MeteredApi } from './usage-readers.js';

/**
 * What a model request carried besides the conversation so far, whatever the wire format: the
 * system prompt, and the results of tool calls the model asked for in earlier turns. Read from the
 * request body the gateway forwarded, so a trajectory holds what the model was given, not what the
 * agent printed about it.
 */
export interface RequestContent {
  /** Instructions, system/developer messages ahead of the conversation, or systemInstruction, joined by blank lines. */
  system?: string;
  toolResults: SentToolResult[];
}

export interface SentToolResult {
  /**
   * Ids the result answers to: the call id it names and, for Gemini, whose API gives calls no ids,
   * `<name>#<position>` among the results that follow the last model turn, the id turn-readers.ts
   * gives the calls of that turn.
   */
  ids: string[];
  output: string;
  /** Only Anthropic's tool_result says so (`is_error`). */
  isError?: boolean;
}

type Json = Record<string, unknown>;

/** Longer than turn text may be (agents' prompts run to tens of thousands of characters); one copy per session is kept. */
export const MAX_SYSTEM_TEXT = 200_000;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Text of a string, or of text parts (`{text}` in every format's part shape). */
function text(content: unknown): string {
  if (typeof content === 'string') return content;
  return list(content)
    .flatMap((part) => (isObject(part) && typeof part['text'] === 'string' ? [part['text']] : []))
    .join('\n');
}

/** A tool output as the model is sent it: text, or JSON when it is structured (Gemini's functionResponse). */
function outputText(value: unknown): string {
  if (typeof value === 'string') return value;
  const asText = text(value);
  if (asText !== '' || Array.isArray(value)) return asText;
  return value === undefined ? '' : JSON.stringify(value);
}

function joined(parts: readonly string[]): string | undefined {
  const kept = parts.map((p) => p.trim()).filter((p) => p !== '');
  return kept.length > 0 ? abbreviate(kept.join('\n\n'), MAX_SYSTEM_TEXT) : undefined;
}

const SYSTEM_ROLES = new Set(['system', 'developer']);

/** The leading messages of a conversation that are the system's (before the first user or assistant one). */
function leadingSystem(messages: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const message of messages) {
    if (!isObject(message) || !SYSTEM_ROLES.has(str(message['role']) ?? '')) break;
    out.push(text(message['content']));
  }
  return out;
}

function result(id: string | undefined, output: unknown, isError?: boolean): SentToolResult[] {
  if (id === undefined || id === '') return [];
  return [{ ids: [id], output: abbreviate(outputText(output)), ...(isError !== undefined ? { isError } : {}) }];
}

export function readRequest(api: MeteredApi, json: Json | undefined): RequestContent {
  if (!json) return { toolResults: [] };
  switch (api) {
    case 'chat': {
      const messages = list(json['messages']);
      const system = joined(leadingSystem(messages));
      const toolResults = messages.flatMap((m) => (isObject(m) && m['role'] === 'tool' ? result(str(m['tool_call_id']), m['content']) : []));
      return { ...(system !== undefined ? { system } : {}), toolResults };
    }
    case 'responses': {
      const input = list(json['input']);
      const system = joined([str(json['instructions']) ?? '', ...leadingSystem(input)]);
      const toolResults = input.flatMap((item) =>
        isObject(item) && /_call_output$/.test(str(item['type']) ?? '') ? result(str(item['call_id']), item['output']) : [],
      );
      return { ...(system !== undefined ? { system } : {}), toolResults };
    }
    case 'messages': {
      const system = joined([text(json['system'])]);
      const toolResults = list(json['messages']).flatMap((m) =>
        isObject(m)
          ? list(m['content']).flatMap((block) =>
              isObject(block) && block['type'] === 'tool_result' ? result(str(block['tool_use_id']), block['content'], block['is_error'] === true) : [],
            )
          : [],
      );
      return { ...(system !== undefined ? { system } : {}), toolResults };
    }
    case 'gemini':
      return geminiRequest(json);
    case 'converse':
      return converseRequest(json);
  }
}

/** Bedrock Converse: `system` is a list of text blocks; tool results are `toolResult` blocks of user messages. */
function converseRequest(json: Json): RequestContent {
  const system = joined(list(json['system']).map((block) => (isObject(block) ? (str(block['text']) ?? '') : '')));
  const toolResults = list(json['messages']).flatMap((m) =>
    isObject(m)
      ? list(m['content']).flatMap((block) => {
          const r = isObject(block) ? block['toolResult'] : undefined;
          return isObject(r) ? result(str(r['toolUseId']), r['content'], r['status'] === 'error') : [];
        })
      : [],
  );
  return { ...(system !== undefined ? { system } : {}), toolResults };
}

function geminiRequest(json: Json): RequestContent {
  const instruction = json['systemInstruction'];
  const system = joined([isObject(instruction) ? text(instruction['parts']) : text(instruction)]);
  const contents = list(json['contents']).filter(isObject);
  const lastModel = contents.map((c) => c['role']).lastIndexOf('model');
  const toolResults: SentToolResult[] = [];
  // Positions count only after the last model turn: the ones turn-readers.ts numbered its calls by.
  let position = 0;
  contents.forEach((content, index) => {
    for (const part of list(content['parts'])) {
      const response = isObject(part) ? part['functionResponse'] : undefined;
      if (!isObject(response)) continue;
      const name = str(response['name']) ?? '';
      const positional = index > lastModel ? `${name}#${position++}` : undefined;
      const ids = [str(response['id']), positional].filter((id): id is string => id !== undefined && id !== '');
      if (ids.length === 0) continue;
      const payload = response['response'];
      const output = isObject(payload) && typeof payload['output'] === 'string' ? payload['output'] : payload;
      toolResults.push({ ids, output: abbreviate(outputText(output)), ...(isObject(payload) && 'error' in payload ? { isError: true } : {}) });
    }
  });
  return { ...(system !== undefined ? { system } : {}), toolResults };
}

/** A tool result the gateway saw sent back, under the id of the call it answers. */
export interface AnsweredCall {
  id: string;
  output: string;
  isError?: boolean;
}

/**
 * The results in a request that answer calls of earlier turns not answered yet. A stateless API
 * sends the whole conversation each time; each result is kept once, on the request that first
 * carried it, so the session holds every tool output once.
 */
export function newlyAnswered(
  earlier: ReadonlyArray<{ toolCalls: ReadonlyArray<{ id: string }>; toolResults?: readonly AnsweredCall[] }>,
  sent: readonly SentToolResult[],
): AnsweredCall[] {
  // Counted, not a set: Gemini's positional ids (`read_file#0`) recur from turn to turn.
  const pending = new Map<string, number>();
  const add = (id: string, by: number) => pending.set(id, (pending.get(id) ?? 0) + by);
  for (const turn of earlier) {
    for (const answered of turn.toolResults ?? []) add(answered.id, -1);
    for (const call of turn.toolCalls) add(call.id, 1);
  }
  const out: AnsweredCall[] = [];
  for (const result of sent) {
    const id = result.ids.find((candidate) => (pending.get(candidate) ?? 0) > 0);
    if (id === undefined) continue;
    add(id, -1);
    out.push({ id, output: result.output, ...(result.isError !== undefined ? { isError: result.isError } : {}) });
  }
  return out;
}
