/**
 * Local stand-ins for each provider, answering with the shapes that provider sends: OpenAI
 * Responses, Anthropic Messages, and the Chat Completions dialects of Gemini's OpenAI endpoint,
 * Groq (usage under x_groq when streaming), Ollama and vLLM. Each answer is queued by the test.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Dialect = 'openai' | 'anthropic' | 'google' | 'groq' | 'ollama' | 'vllm';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  json: Record<string, unknown>;
}

export type Reply =
  | { kind: 'tool'; name: string; args: Record<string, unknown>; id: string }
  | { kind: 'rate-limited' }
  | { kind: 'server-error' }
  | { kind: 'malformed' }
  /** A plain text answer (not streamed), usage as for a tool call. */
  | { kind: 'text'; text: string };

export interface ProviderServer {
  url: string;
  received: Received[];
  queue: Reply[];
  close(): Promise<void>;
}

/** Tokens each dialect reports for a tool-call answer: what the SDK and the gateway must both read. */
export const REPORTED: Record<Dialect, { input: number; cached: number; output: number; reasoning: number; cacheWrite: number }> = {
  openai: { input: 2000, cached: 1536, output: 300, reasoning: 128, cacheWrite: 0 },
  anthropic: { input: 3250, cached: 3000, output: 150, reasoning: 0, cacheWrite: 200 },
  google: { input: 1800, cached: 1024, output: 40, reasoning: 0, cacheWrite: 0 },
  // Groq caches only some models' prompts (not Llama's), and prices no cache reads for them here.
  groq: { input: 900, cached: 0, output: 30, reasoning: 0, cacheWrite: 0 },
  ollama: { input: 700, cached: 0, output: 25, reasoning: 0, cacheWrite: 0 },
  vllm: { input: 650, cached: 0, output: 22, reasoning: 0, cacheWrite: 0 },
};

const MODEL: Record<Dialect, string> = {
  openai: 'gpt-4.1-mini-2025-04-14',
  anthropic: 'claude-sonnet-4-5-20250929',
  google: 'gemini-2.5-flash',
  groq: 'llama-3.3-70b-versatile',
  ollama: 'qwen2.5-coder:7b',
  vllm: 'Qwen/Qwen2.5-Coder-32B-Instruct',
};

export async function startProviderServer(dialect: Dialect): Promise<ProviderServer> {
  const received: Received[] = [];
  const queue: Reply[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const json = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, json });
      const reply = queue.shift() ?? { kind: 'tool', name: 'submit', args: { summary: 'done' }, id: 'call_end' };
      const stream = json['stream'] === true;
      if (reply.kind === 'rate-limited') return send(res, 429, rateLimited(dialect), { 'retry-after': '3' });
      if (reply.kind === 'server-error') return send(res, dialect === 'anthropic' ? 529 : 500, serverError(dialect));
      if (reply.kind === 'malformed') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{"id":"x","object":"chat.completion","choices":[{"index":0,');
      }
      if (reply.kind === 'text') return send(res, 200, textAnswer(dialect, reply.text));
      if (!stream) return send(res, 200, toolAnswer(dialect, reply));
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const includeUsage = (json['stream_options'] as { include_usage?: boolean } | undefined)?.include_usage === true;
      for (const event of toolEvents(dialect, reply, includeUsage)) res.write(event);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    queue,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(res: import('node:http').ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function rateLimited(dialect: Dialect): unknown {
  switch (dialect) {
    case 'anthropic':
      return { type: 'error', error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } };
    case 'google':
      // Gemini's OpenAI endpoint wraps its errors in an array.
      return [{ error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } }];
    default:
      return { error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } };
  }
}

function serverError(dialect: Dialect): unknown {
  return dialect === 'anthropic'
    ? { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }
    : { error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } };
}

function chatUsage(dialect: Dialect): Record<string, unknown> {
  const u = REPORTED[dialect];
  const base = { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output };
  switch (dialect) {
    case 'google':
      return { ...base, prompt_tokens_details: { cached_tokens: u.cached } };
    case 'groq':
      return { queue_time: 0.02, ...base, prompt_time: 0.01, completion_time: 0.05, total_time: 0.06, prompt_tokens_details: { cached_tokens: u.cached } };
    case 'vllm':
      return { ...base, prompt_tokens_details: null };
    default:
      return base;
  }
}

function toolAnswer(dialect: Dialect, reply: Extract<Reply, { kind: 'tool' }>): unknown {
  const args = JSON.stringify(reply.args);
  if (dialect === 'openai') {
    const u = REPORTED.openai;
    return {
      id: 'resp_67ccd2bed1ec8190',
      object: 'response',
      created_at: 1741476542,
      status: 'completed',
      error: null,
      incomplete_details: null,
      model: MODEL.openai,
      output: [{ id: `fc_${reply.id}`, type: 'function_call', status: 'completed', arguments: args, call_id: reply.id, name: reply.name }],
      usage: {
        input_tokens: u.input,
        input_tokens_details: { cached_tokens: u.cached },
        output_tokens: u.output,
        output_tokens_details: { reasoning_tokens: u.reasoning },
        total_tokens: u.input + u.output,
      },
    };
  }
  if (dialect === 'anthropic') {
    const u = REPORTED.anthropic;
    return {
      id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
      type: 'message',
      role: 'assistant',
      model: MODEL.anthropic,
      content: [
        { type: 'text', text: 'On it.' },
        { type: 'tool_use', id: reply.id, name: reply.name, input: reply.args },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: {
        input_tokens: u.input - u.cached - u.cacheWrite,
        cache_creation_input_tokens: u.cacheWrite,
        cache_read_input_tokens: u.cached,
        output_tokens: u.output,
      },
    };
  }
  return {
    id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
    object: 'chat.completion',
    created: 1741569952,
    model: MODEL[dialect],
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, tool_calls: [{ id: reply.id, type: 'function', function: { name: reply.name, arguments: args } }] },
        finish_reason: 'tool_calls',
      },
    ],
    usage: chatUsage(dialect),
    ...(dialect === 'groq' ? { x_groq: { id: 'req_01jqz' } } : {}),
  };
}

/** The tool answer's shape with the tool call replaced by text. */
function textAnswer(dialect: Dialect, text: string): unknown {
  const answer = toolAnswer(dialect, { kind: 'tool', name: 'none', args: {}, id: 'none' }) as Record<string, unknown>;
  if (dialect === 'openai')
    return {
      ...answer,
      output: [{ id: 'msg_67ccd3', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
    };
  if (dialect === 'anthropic') return { ...answer, content: [{ type: 'text', text }], stop_reason: 'end_turn' };
  return { ...answer, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }] };
}

function toolEvents(dialect: Dialect, reply: Extract<Reply, { kind: 'tool' }>, includeUsage: boolean): string[] {
  const args = JSON.stringify(reply.args);
  const cut = Math.floor(args.length / 2);
  if (dialect === 'openai') {
    const done = toolAnswer('openai', reply) as Record<string, unknown>;
    const item = { id: `fc_${reply.id}`, type: 'function_call', status: 'completed', arguments: args, call_id: reply.id, name: reply.name };
    const payloads = [
      { type: 'response.created', response: { ...done, status: 'in_progress', output: [], usage: null } },
      { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } },
      { type: 'response.function_call_arguments.delta', item_id: item.id, output_index: 0, delta: args.slice(0, cut) },
      { type: 'response.function_call_arguments.delta', item_id: item.id, output_index: 0, delta: args.slice(cut) },
      { type: 'response.function_call_arguments.done', item_id: item.id, output_index: 0, arguments: args },
      { type: 'response.output_item.done', output_index: 0, item },
      { type: 'response.completed', response: done },
    ];
    return payloads.map((p, i) => `event: ${p.type}\ndata: ${JSON.stringify({ ...p, sequence_number: i })}\n\n`);
  }
  if (dialect === 'anthropic') {
    const u = REPORTED.anthropic;
    const start = {
      id: 'msg_01',
      type: 'message',
      role: 'assistant',
      model: MODEL.anthropic,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: u.input - u.cached - u.cacheWrite,
        cache_creation_input_tokens: u.cacheWrite,
        cache_read_input_tokens: u.cached,
        output_tokens: 1,
      },
    };
    const events: Array<[string, unknown]> = [
      ['message_start', { type: 'message_start', message: start }],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: reply.id, name: reply.name, input: {} } }],
      ['ping', { type: 'ping' }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: args.slice(0, cut) } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: args.slice(cut) } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: u.output } }],
      ['message_stop', { type: 'message_stop' }],
    ];
    return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }
  const base = { id: 'chatcmpl-stream', object: 'chat.completion.chunk', created: 1741569952, model: MODEL[dialect] };
  const chunk = (delta: unknown, finish: string | null, extra: Record<string, unknown> = {}): string =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
  const chunks = [
    chunk(
      { role: 'assistant', content: null, tool_calls: [{ index: 0, id: reply.id, type: 'function', function: { name: reply.name, arguments: '' } }] },
      null,
    ),
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, cut) } }] }, null),
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(cut) } }] }, null),
  ];
  if (dialect === 'groq') {
    // Groq puts streaming usage on the last chunk under x_groq, whatever stream_options say.
    chunks.push(chunk({}, 'tool_calls', { x_groq: { id: 'req_01jqz', usage: chatUsage('groq') } }));
  } else {
    chunks.push(chunk({}, 'tool_calls'));
    if (includeUsage) chunks.push(`data: ${JSON.stringify({ ...base, choices: [], usage: chatUsage(dialect) })}\n\n`);
  }
  return [...chunks, 'data: [DONE]\n\n'];
}
