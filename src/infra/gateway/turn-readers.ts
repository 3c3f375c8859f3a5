import type { SseEvent } from './sse.js';
import type { MeteredApi } from './usage-readers.js';

/** What the model said and asked for in one response, whatever the wire format. */
export interface TurnContent {
  text?: string;
  reasoning?: string;
  toolCalls: ToolCall[];
  finishReason?: string;
}

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed from JSON when it is JSON; a freeform tool's raw input (Codex's apply_patch) stays a string. */
  input: unknown;
}

/** Reads one response's content, fed its whole body or its SSE events in order (like UsageReader). */
export interface TurnReader {
  body(text: string): void;
  event(event: SseEvent): void;
  result(): TurnContent;
}

/** Text longer than this is cut in the middle: turns are kept in memory for the whole run. */
export const MAX_TURN_TEXT = 20_000;

export function turnReader(api: MeteredApi): TurnReader {
  switch (api) {
    case 'chat':
      return new ChatTurnReader();
    case 'responses':
      return new ResponsesTurnReader();
    case 'messages':
      return new MessagesTurnReader();
    case 'gemini':
      return new GeminiTurnReader();
    case 'converse':
      return new ConverseTurnReader();
  }
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parse(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** JSON arguments parsed; anything that is not JSON (or is cut off) kept as the string it was. */
function parseInput(raw: string): unknown {
  if (raw.trim() === '') return {};
  const value = parse(raw);
  return value === undefined ? raw : value;
}

/** Keeps the start and the end of long text, saying how much was left out. */
export function abbreviate(text: string, max = MAX_TURN_TEXT): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n…[${text.length - 2 * half} characters omitted]…\n${text.slice(-half)}`;
}

function abbreviateDeep(value: unknown): unknown {
  if (typeof value === 'string') return abbreviate(value);
  if (Array.isArray(value)) return value.map(abbreviateDeep);
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [key, item] of Object.entries(value)) out[key] = abbreviateDeep(item);
  return out;
}

/** Accumulates the parts every reader has in common and turns them into a bounded TurnContent. */
class Turn {
  text = '';
  reasoning = '';
  calls: ToolCall[] = [];
  finishReason: string | undefined;

  result(): TurnContent {
    return {
      ...(this.text !== '' ? { text: abbreviate(this.text) } : {}),
      ...(this.reasoning !== '' ? { reasoning: abbreviate(this.reasoning) } : {}),
      toolCalls: this.calls.map((call) => ({ ...call, input: abbreviateDeep(call.input) })),
      ...(this.finishReason !== undefined ? { finishReason: this.finishReason } : {}),
    };
  }
}

/** Chat Completions: the first choice; streamed tool calls arrive in pieces keyed by `index`. */
class ChatTurnReader implements TurnReader {
  private readonly turn = new Turn();
  private readonly pending = new Map<number, { id: string; name: string; args: string }>();

  body(body: string): void {
    const choice = list((parse(body) as Json | undefined)?.['choices'])[0];
    if (!isObject(choice)) return;
    const message = choice['message'];
    if (isObject(message)) {
      this.turn.text += contentText(message['content']);
      this.turn.reasoning += str(message['reasoning_content']) ?? str(message['reasoning']) ?? '';
      for (const call of list(message['tool_calls'])) {
        if (!isObject(call)) continue;
        const fn = isObject(call['function']) ? call['function'] : {};
        this.turn.calls.push({ id: str(call['id']) ?? '', name: str(fn['name']) ?? '', input: parseInput(str(fn['arguments']) ?? '') });
      }
    }
    this.turn.finishReason = str(choice['finish_reason']);
  }

  event(event: SseEvent): void {
    if (event.data === '[DONE]') return;
    const choice = list((parse(event.data) as Json | undefined)?.['choices'])[0];
    if (!isObject(choice)) return;
    const delta = choice['delta'];
    if (isObject(delta)) {
      this.turn.text += contentText(delta['content']);
      this.turn.reasoning += str(delta['reasoning_content']) ?? str(delta['reasoning']) ?? '';
      for (const piece of list(delta['tool_calls'])) {
        if (!isObject(piece)) continue;
        const index = typeof piece['index'] === 'number' ? piece['index'] : this.pending.size;
        const call = this.pending.get(index) ?? { id: '', name: '', args: '' };
        const fn = isObject(piece['function']) ? piece['function'] : {};
        call.id ||= str(piece['id']) ?? '';
        call.name += str(fn['name']) ?? '';
        call.args += str(fn['arguments']) ?? '';
        this.pending.set(index, call);
      }
    }
    this.turn.finishReason = str(choice['finish_reason']) ?? this.turn.finishReason;
  }

  result(): TurnContent {
    if (this.pending.size > 0) {
      this.turn.calls = [...this.pending.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, call]) => ({ id: call.id, name: call.name, input: parseInput(call.args) }));
    }
    return this.turn.result();
  }
}

/** Message content as a string, or as an array of `{type:'text', text}` parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return list(content)
    .map((part) => (isObject(part) ? (str(part['text']) ?? '') : ''))
    .join('');
}

/**
 * Responses: the output items. Streamed, the final `response.completed` carries them all; else the
 * `output_item.done` events do; text deltas are the last resort (a stream cut short).
 */
class ResponsesTurnReader implements TurnReader {
  private final: unknown[] | undefined;
  private readonly done: unknown[] = [];
  private deltas = '';
  private status: string | undefined;

  body(body: string): void {
    const response = parse(body);
    if (!isObject(response)) return;
    this.final = list(response['output']);
    this.status = responseStatus(response);
  }

  event(event: SseEvent): void {
    const data = parse(event.data);
    if (!isObject(data)) return;
    const type = str(data['type']) ?? event.event;
    if (type === 'response.output_item.done') this.done.push(data['item']);
    else if (type === 'response.output_text.delta') this.deltas += str(data['delta']) ?? '';
    else if (type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') {
      const response = data['response'];
      if (isObject(response)) {
        const output = list(response['output']);
        if (output.length > 0) this.final = output;
        this.status = responseStatus(response);
      }
    }
  }

  result(): TurnContent {
    const turn = new Turn();
    const items = this.final ?? this.done;
    for (const item of items) {
      if (!isObject(item)) continue;
      switch (item['type']) {
        case 'message':
          turn.text += list(item['content'])
            .map((part) => (isObject(part) ? (str(part['text']) ?? str(part['refusal']) ?? '') : ''))
            .join('');
          break;
        case 'reasoning':
          turn.reasoning += [...list(item['summary']), ...list(item['content'])].map((part) => (isObject(part) ? (str(part['text']) ?? '') : '')).join('\n');
          break;
        case 'function_call':
          turn.calls.push({ id: callId(item), name: str(item['name']) ?? '', input: parseInput(str(item['arguments']) ?? '') });
          break;
        case 'custom_tool_call':
          // A freeform tool (Codex's apply_patch): its input is the patch text, not JSON.
          turn.calls.push({ id: callId(item), name: str(item['name']) ?? '', input: str(item['input']) ?? '' });
          break;
        case 'local_shell_call':
          turn.calls.push({ id: callId(item), name: 'local_shell', input: item['action'] });
          break;
      }
    }
    if (items.length === 0) turn.text = this.deltas;
    turn.finishReason = this.status;
    return turn.result();
  }
}

function callId(item: Json): string {
  return str(item['call_id']) ?? str(item['id']) ?? '';
}

/** `completed`, or why it is incomplete (`incomplete:max_output_tokens`), or `failed`. */
function responseStatus(response: Json): string | undefined {
  const status = str(response['status']);
  const reason = isObject(response['incomplete_details']) ? str(response['incomplete_details']['reason']) : undefined;
  return status !== undefined && reason !== undefined ? `${status}:${reason}` : status;
}

/** Anthropic Messages: content blocks, streamed as start / deltas / stop per index. */
class MessagesTurnReader implements TurnReader {
  private readonly blocks = new Map<number, { type: string; text: string; id: string; name: string; input: unknown; json: string }>();
  private stopReason: string | undefined;

  body(body: string): void {
    const message = parse(body);
    if (!isObject(message)) return;
    list(message['content']).forEach((block, index) => this.start(index, block));
    this.stopReason = str(message['stop_reason']);
  }

  event(event: SseEvent): void {
    const data = parse(event.data);
    if (!isObject(data)) return;
    const index = typeof data['index'] === 'number' ? data['index'] : -1;
    switch (data['type']) {
      case 'content_block_start':
        this.start(index, data['content_block']);
        break;
      case 'content_block_delta': {
        const block = this.blocks.get(index);
        const delta = data['delta'];
        if (!block || !isObject(delta)) return;
        block.text += str(delta['text']) ?? str(delta['thinking']) ?? '';
        block.json += str(delta['partial_json']) ?? '';
        break;
      }
      case 'message_delta':
        if (isObject(data['delta'])) this.stopReason = str(data['delta']['stop_reason']) ?? this.stopReason;
        break;
    }
  }

  private start(index: number, block: unknown): void {
    if (!isObject(block)) return;
    this.blocks.set(index, {
      type: str(block['type']) ?? '',
      text: str(block['text']) ?? str(block['thinking']) ?? '',
      id: str(block['id']) ?? '',
      name: str(block['name']) ?? '',
      input: block['input'],
      json: '',
    });
  }

  result(): TurnContent {
    const turn = new Turn();
    for (const [, block] of [...this.blocks.entries()].sort(([a], [b]) => a - b)) {
      if (block.type === 'text') turn.text += block.text;
      else if (block.type === 'thinking') turn.reasoning += block.text;
      else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
        // Streamed, the start block has `input: {}` and the arguments come as partial JSON.
        turn.calls.push({ id: block.id, name: block.name, input: block.json !== '' ? parseInput(block.json) : (block.input ?? {}) });
      }
    }
    turn.finishReason = this.stopReason;
    return turn.result();
  }
}

/** Gemini: the first candidate's parts; each streamed chunk adds parts (text pieces, whole function calls). */
class GeminiTurnReader implements TurnReader {
  private readonly turn = new Turn();

  body(body: string): void {
    const value = parse(body);
    for (const chunk of Array.isArray(value) ? value : [value]) this.chunk(chunk);
  }

  event(event: SseEvent): void {
    this.chunk(parse(event.data));
  }

  private chunk(chunk: unknown): void {
    if (!isObject(chunk)) return;
    const candidate = list(chunk['candidates'])[0];
    if (!isObject(candidate)) return;
    const content = candidate['content'];
    for (const part of isObject(content) ? list(content['parts']) : []) {
      if (!isObject(part)) continue;
      const text = str(part['text']);
      if (text !== undefined) {
        if (part['thought'] === true) this.turn.reasoning += text;
        else this.turn.text += text;
      }
      const call = part['functionCall'];
      if (isObject(call)) {
        const name = str(call['name']) ?? '';
        // Gemini gives ids only in some versions; the position stands in so calls stay distinct.
        this.turn.calls.push({ id: str(call['id']) ?? `${name}#${this.turn.calls.length}`, name, input: call['args'] ?? {} });
      }
    }
    this.turn.finishReason = str(candidate['finishReason']) ?? this.turn.finishReason;
  }

  result(): TurnContent {
    return this.turn.result();
  }
}

/** Bedrock Converse: `output.message.content` blocks (text, reasoningContent, toolUse) and `stopReason`. */
class ConverseTurnReader implements TurnReader {
  private readonly turn = new Turn();

  body(body: string): void {
    const response = parse(body);
    if (!isObject(response)) return;
    const output = response['output'];
    const message = isObject(output) ? output['message'] : undefined;
    for (const block of isObject(message) ? list(message['content']) : []) {
      if (!isObject(block)) continue;
      this.turn.text += str(block['text']) ?? '';
      const reasoning = block['reasoningContent'];
      const reasoningText = isObject(reasoning) ? reasoning['reasoningText'] : undefined;
      if (isObject(reasoningText)) this.turn.reasoning += str(reasoningText['text']) ?? '';
      const use = block['toolUse'];
      if (isObject(use)) this.turn.calls.push({ id: str(use['toolUseId']) ?? '', name: str(use['name']) ?? '', input: use['input'] ?? {} });
    }
    this.turn.finishReason = str(response['stopReason']);
  }

  /** converse-stream: blocks by contentBlockIndex, tool input as JSON text in pieces, stopReason in messageStop. */
  event(event: SseEvent): void {
    const data = parse(event.data);
    if (!isObject(data)) return;
    const index = typeof data['contentBlockIndex'] === 'number' ? data['contentBlockIndex'] : -1;
    if (event.event === 'contentBlockStart') {
      const use = isObject(data['start']) ? data['start']['toolUse'] : undefined;
      if (isObject(use)) this.streamed.set(index, { id: str(use['toolUseId']) ?? '', name: str(use['name']) ?? '', json: '' });
    } else if (event.event === 'contentBlockDelta') {
      const delta = isObject(data['delta']) ? data['delta'] : {};
      this.turn.text += str(delta['text']) ?? '';
      const reasoning = delta['reasoningContent'];
      if (isObject(reasoning)) this.turn.reasoning += str(reasoning['text']) ?? '';
      const use = delta['toolUse'];
      const call = this.streamed.get(index);
      if (isObject(use) && call) call.json += str(use['input']) ?? '';
    } else if (event.event === 'messageStop') {
      this.turn.finishReason = str(data['stopReason']);
    }
  }

  private readonly streamed = new Map<number, { id: string; name: string; json: string }>();

  result(): TurnContent {
    for (const call of [...this.streamed.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => c)) {
      this.turn.calls.push({ id: call.id, name: call.name, input: parseInput(call.json) });
    }
    this.streamed.clear();
    return this.turn.result();
  }
}
