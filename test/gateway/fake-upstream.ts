/**
 * A stand-in for OpenAI, Anthropic and Gemini on 127.0.0.1, answering with the shapes those APIs
 * send (chat.completion / chat.completion.chunk, Responses events, Messages events,
 * GenerateContentResponse), usage with cached tokens included. The request's `model` (Gemini: the
 * model in the path) picks a scenario: see SCENARIOS. A request whose text says
 * `Working directory: <dir>` gets tool calls with `<dir>/src/a.ts`, as agents get absolute paths.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json?: Record<string, unknown>;
}

export interface FakeUpstream {
  url: string;
  requests: ReceivedRequest[];
  /** Lets a `gated` stream continue after its first event. */
  release(): void;
  close(): Promise<void>;
}

/** Models that trigger a special answer; any other model gets a normal one. */
export const SCENARIOS = {
  rateLimited: 'rate-limited',
  broken: 'broken',
  malformed: 'malformed',
  echoKey: 'echo-key',
  gated: 'gated',
  /** Streamed tool arguments cut in the middle of the file path, as real streams cut anywhere. */
  splitPath: 'split-path',
  /** A chat completion whose usage contradicts itself: more cached than prompt tokens, a wrong total. */
  contradictoryUsage: 'contradictory-usage',
} as const;

export const USAGE = {
  chat: { prompt: 1200, cached: 1024, completion: 80, reasoning: 16 },
  responses: { input: 2000, cached: 1536, output: 300, reasoning: 128 },
  messages: { input: 50, cacheRead: 3000, cacheWrite: 200, output: 150 },
  gemini: { prompt: 900, cached: 512, candidates: 40, thoughts: 24 },
} as const;

const GEMINI_PATH = /^\/v1(?:beta)?\/models\/([^/:?]+):(generateContent|streamGenerateContent)(\?.*)?$/;

const CHAT_MODEL = 'gpt-4o-mini-2024-07-18';
const RESPONSES_MODEL = 'gpt-4.1-2025-04-14';
const CLAUDE_MODEL = 'claude-sonnet-4-5-20250929';

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const requests: ReceivedRequest[] = [];
  let serial = 0;
  let releaseGate: () => void = () => undefined;
  let gate = new Promise<void>((resolve) => (releaseGate = resolve));

  const server = createServer((req, res) => {
    void readAll(req).then(async (body) => {
      const json = parseJson(body);
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, ...(json ? { json } : {}) });
      const gemini = GEMINI_PATH.exec(req.url ?? '');
      const model = gemini ? decodeURIComponent(gemini[1] as string) : typeof json?.['model'] === 'string' ? json['model'] : '';
      const target = toolTarget(body);
      const cut = model === SCENARIOS.splitPath ? Math.floor(target.length / 2) : 0;
      const anthropic = req.url?.startsWith('/v1/messages') ?? false;
      if (req.method === 'GET' && req.url === '/v1/models') {
        return sendJson(res, 200, { object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model', created: 1721172741, owned_by: 'system' }] });
      }
      if (gemini && model === SCENARIOS.rateLimited) {
        return sendJson(res, 429, { error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } });
      }
      if (model === SCENARIOS.rateLimited) return rateLimited(res, anthropic);
      if (model === SCENARIOS.broken) return serverError(res, anthropic);
      if (model === SCENARIOS.echoKey) return echoKey(req, res);
      if (model === SCENARIOS.malformed) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{"id":"chatcmpl-9","object":"chat.completion","choices":[{"index":0,');
      }
      if (model === SCENARIOS.contradictoryUsage) {
        const usage = { ...chatUsage(), total_tokens: 999, prompt_tokens_details: { cached_tokens: USAGE.chat.prompt + 300 } };
        return sendJson(res, 200, { ...chatCompletion(false, 1741569952, target), usage });
      }
      const waitForGate = model === SCENARIOS.gated ? () => gate : undefined;
      const stream = json?.['stream'] === true;
      const tools = Array.isArray(json?.['tools']) && (json['tools'] as unknown[]).length > 0;
      if (gemini) {
        const responses = geminiResponses(tools, target);
        if (gemini[2] === 'generateContent') return sendJson(res, 200, geminiWhole(tools, target));
        if ((gemini[3] ?? '').includes('alt=sse'))
          return sendEvents(
            res,
            responses.map((r) => `data: ${JSON.stringify(r)}\r\n\r\n`),
            waitForGate,
          );
        // Without alt=sse Gemini streams one JSON array.
        return sendJson(res, 200, responses);
      }
      if (req.url === '/v1/chat/completions') {
        // A different `created` per request, so tests can tell repeated identical requests apart.
        const created = 1741569952 + serial++;
        if (!stream) return sendJson(res, 200, chatCompletion(tools, created, target), openaiHeaders());
        const includeUsage = (json?.['stream_options'] as { include_usage?: boolean } | undefined)?.include_usage === true;
        return sendEvents(
          res,
          chatChunks(tools, includeUsage, created, target, cut).map((c) => `data: ${c}\n\n`),
          waitForGate,
        );
      }
      if (req.url === '/v1/responses') {
        if (!stream) return sendJson(res, 200, responseObject(tools, 'completed', target), openaiHeaders());
        return sendEvents(res, responsesEvents(tools, target, cut), waitForGate);
      }
      if (anthropic) {
        if (!stream) return sendJson(res, 200, anthropicMessage(tools, target), anthropicHeaders());
        return sendEvents(res, messagesEvents(tools, target, cut), waitForGate, anthropicHeaders());
      }
      sendJson(res, 404, { error: { message: `Unknown path ${req.url}`, type: 'invalid_request_error', param: null, code: 'unknown_url' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    release() {
      releaseGate();
      gate = new Promise<void>((resolve) => (releaseGate = resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function openaiHeaders(): Record<string, string> {
  return {
    'openai-organization': 'org-fake-account',
    'openai-processing-ms': '412',
    'x-request-id': 'req_7f3c1c9d',
    'set-cookie': '__cf_bm=tracking-cookie; path=/; HttpOnly',
  };
}

function anthropicHeaders(): Record<string, string> {
  return { 'request-id': 'req_011CSHoEeqs5C35K2UUqR7Fy', 'anthropic-organization-id': 'f3b0c1d2-org' };
}

function chatUsage(): Record<string, unknown> {
  const u = USAGE.chat;
  return {
    prompt_tokens: u.prompt,
    completion_tokens: u.completion,
    total_tokens: u.prompt + u.completion,
    prompt_tokens_details: { cached_tokens: u.cached, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: u.reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

/** The file the tool calls name: relative, or under the working directory the request mentions. */
function toolTarget(body: string): string {
  const dir = /Working directory: ([^\s"\\]+)/.exec(body)?.[1];
  return dir === undefined ? 'src/a.ts' : `${dir}/src/a.ts`;
}

function chatCompletion(tools: boolean, created: number, target: string): Record<string, unknown> {
  const message = tools
    ? {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_Xq1', type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: target }) } }],
        refusal: null,
        annotations: [],
      }
    : { role: 'assistant', content: 'The bug is in src/a.ts.', refusal: null, annotations: [] };
  return {
    id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
    object: 'chat.completion',
    created,
    model: CHAT_MODEL,
    choices: [{ index: 0, message, logprobs: null, finish_reason: tools ? 'tool_calls' : 'stop' }],
    usage: chatUsage(),
    service_tier: 'default',
    system_fingerprint: 'fp_06737a9306',
  };
}

/** The JSON text after `{"path":` in pieces: whole, or cut at `cut` characters into the path. */
function pathPieces(target: string, cut: number): string[] {
  const rest = `${JSON.stringify(target)}}`;
  return cut > 0 ? [rest.slice(0, cut + 1), rest.slice(cut + 1)] : [rest];
}

function chatChunks(tools: boolean, includeUsage: boolean, created: number, target: string, cut: number): string[] {
  const base = {
    id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
    object: 'chat.completion.chunk',
    created,
    model: CHAT_MODEL,
    system_fingerprint: 'fp_06737a9306',
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null): string =>
    JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}) });
  const deltas = tools
    ? [
        chunk(
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ index: 0, id: 'call_Xq1', type: 'function', function: { name: 'read_file', arguments: '' } }],
            refusal: null,
          },
          null,
        ),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }, null),
        ...pathPieces(target, cut).map((piece) => chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }, null)),
        chunk({}, 'tool_calls'),
      ]
    : [
        chunk({ role: 'assistant', content: '', refusal: null }, null),
        chunk({ content: 'The bug is ' }, null),
        chunk({ content: 'in src/a.ts — naïve “quotes”.' }, null),
        chunk({}, 'stop'),
      ];
  const usage = includeUsage ? [JSON.stringify({ ...base, choices: [], usage: chatUsage() })] : [];
  return [...deltas, ...usage, '[DONE]'];
}

function responsesUsage(): Record<string, unknown> {
  const u = USAGE.responses;
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cached },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.input + u.output,
  };
}

const FUNCTION_CALL = {
  id: 'fc_67ca09c6',
  type: 'function_call',
  status: 'completed',
  arguments: '{"path":"src/a.ts"}',
  call_id: 'call_unLAR8',
  name: 'read_file',
};
const TEXT_MESSAGE = {
  id: 'msg_67ccd3acc8d4',
  type: 'message',
  status: 'completed',
  role: 'assistant',
  content: [{ type: 'output_text', text: 'The bug is in src/a.ts.', annotations: [] }],
};

function functionCall(target: string): typeof FUNCTION_CALL {
  return { ...FUNCTION_CALL, arguments: JSON.stringify({ path: target }) };
}

function responseObject(tools: boolean, status: 'in_progress' | 'completed', target = 'src/a.ts'): Record<string, unknown> {
  const done = status === 'completed';
  return {
    id: 'resp_67ccd2bed1ec8190',
    object: 'response',
    created_at: 1741476542,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: RESPONSES_MODEL,
    output: done ? [tools ? functionCall(target) : TEXT_MESSAGE] : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: 1.0,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1.0,
    truncation: 'disabled',
    usage: done ? responsesUsage() : null,
    user: null,
    metadata: {},
  };
}

function responsesEvents(tools: boolean, target: string, cut: number): string[] {
  const payloads: Array<Record<string, unknown>> = [
    { type: 'response.created', response: responseObject(tools, 'in_progress') },
    { type: 'response.in_progress', response: responseObject(tools, 'in_progress') },
  ];
  if (tools) {
    const call = functionCall(target);
    payloads.push(
      { type: 'response.output_item.added', output_index: 0, item: { ...call, status: 'in_progress', arguments: '' } },
      { type: 'response.function_call_arguments.delta', item_id: call.id, output_index: 0, delta: '{"path":' },
      ...pathPieces(target, cut).map((delta) => ({ type: 'response.function_call_arguments.delta', item_id: call.id, output_index: 0, delta })),
      { type: 'response.function_call_arguments.done', item_id: call.id, output_index: 0, arguments: call.arguments },
      { type: 'response.output_item.done', output_index: 0, item: call },
    );
  } else {
    const part = { type: 'output_text', text: '', annotations: [] };
    payloads.push(
      { type: 'response.output_item.added', output_index: 0, item: { ...TEXT_MESSAGE, status: 'in_progress', content: [] } },
      { type: 'response.content_part.added', item_id: TEXT_MESSAGE.id, output_index: 0, content_index: 0, part },
      { type: 'response.output_text.delta', item_id: TEXT_MESSAGE.id, output_index: 0, content_index: 0, delta: 'The bug is ' },
      { type: 'response.output_text.delta', item_id: TEXT_MESSAGE.id, output_index: 0, content_index: 0, delta: 'in src/a.ts.' },
      { type: 'response.output_text.done', item_id: TEXT_MESSAGE.id, output_index: 0, content_index: 0, text: 'The bug is in src/a.ts.' },
      { type: 'response.content_part.done', item_id: TEXT_MESSAGE.id, output_index: 0, content_index: 0, part: TEXT_MESSAGE.content[0] },
      { type: 'response.output_item.done', output_index: 0, item: TEXT_MESSAGE },
    );
  }
  payloads.push({ type: 'response.completed', response: responseObject(tools, 'completed', target) });
  return payloads.map((p, i) => `event: ${String(p['type'])}\ndata: ${JSON.stringify({ ...p, sequence_number: i })}\n\n`);
}

function anthropicUsage(output: number): Record<string, unknown> {
  const u = USAGE.messages;
  return {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cacheRead,
    output_tokens: output,
    service_tier: 'standard',
  };
}

function anthropicMessage(tools: boolean, target = 'src/a.ts'): Record<string, unknown> {
  const content: unknown[] = [{ type: 'text', text: 'Let me read the file.' }];
  if (tools) content.push({ type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'read_file', input: { path: target } });
  return {
    id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
    type: 'message',
    role: 'assistant',
    model: CLAUDE_MODEL,
    content,
    stop_reason: tools ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: anthropicUsage(USAGE.messages.output),
  };
}

function messagesEvents(tools: boolean, target: string, cut: number): string[] {
  const events: Array<[string, Record<string, unknown>]> = [
    ['message_start', { type: 'message_start', message: { ...anthropicMessage(tools), content: [], stop_reason: null, usage: anthropicUsage(1) } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['ping', { type: 'ping' }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me read ' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'the file.' } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ];
  if (tools) {
    events.push(
      [
        'content_block_start',
        { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'read_file', input: {} } },
      ],
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"path":' } }],
      ...pathPieces(target, cut).map((piece): [string, Record<string, unknown>] => [
        'content_block_delta',
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: piece } },
      ]),
      ['content_block_stop', { type: 'content_block_stop', index: 1 }],
    );
  }
  events.push(
    [
      'message_delta',
      { type: 'message_delta', delta: { stop_reason: tools ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: USAGE.messages.output } },
    ],
    ['message_stop', { type: 'message_stop' }],
  );
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
}

function geminiUsage(candidates: number): Record<string, unknown> {
  const u = USAGE.gemini;
  return {
    promptTokenCount: u.prompt,
    cachedContentTokenCount: u.cached,
    candidatesTokenCount: candidates,
    thoughtsTokenCount: u.thoughts,
    totalTokenCount: u.prompt + candidates + u.thoughts,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: u.prompt }],
  };
}

const GEMINI_MODEL = 'gemini-2.5-pro';

function geminiWhole(tools: boolean, target: string): Record<string, unknown> {
  const parts: unknown[] = [{ text: 'Checking the tests.', thought: true }, { text: 'Let me read the file.' }];
  if (tools) parts.push({ functionCall: { name: 'read_file', args: { path: target } } });
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: geminiUsage(USAGE.gemini.candidates),
    modelVersion: GEMINI_MODEL,
    responseId: 'mJ0saJq0Kf-Fz7IPhL2WsQo',
  };
}

/** Streamed: a thought, text in two pieces, then the call; usage in every chunk, complete in the last. */
function geminiResponses(tools: boolean, target: string): Array<Record<string, unknown>> {
  const chunk = (parts: unknown[], candidates: number, finish?: string): Record<string, unknown> => ({
    candidates: [{ content: { role: 'model', parts }, ...(finish ? { finishReason: finish } : {}), index: 0 }],
    usageMetadata: geminiUsage(candidates),
    modelVersion: GEMINI_MODEL,
    responseId: 'nJ0saJq0Kf-Fz7IPhL2WsQo',
  });
  const last = tools ? [{ functionCall: { name: 'read_file', args: { path: target } } }] : [{ text: '' }];
  return [
    chunk([{ text: 'Checking the tests.', thought: true }], 1),
    chunk([{ text: 'Let me read ' }], 5),
    chunk([{ text: 'the file.' }], 12),
    chunk(last, USAGE.gemini.candidates, 'STOP'),
  ];
}

async function sendEvents(res: ServerResponse, events: string[], waitForGate?: () => Promise<void>, extraHeaders: Record<string, string> = {}): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...extraHeaders });
  for (const [index, event] of events.entries()) {
    if (index === 1 && waitForGate) await waitForGate();
    // Split every event in two writes so the gateway has to reassemble events across chunks.
    const cut = Math.floor(event.length / 2);
    res.write(event.slice(0, cut));
    await new Promise((resolve) => setImmediate(resolve));
    res.write(event.slice(cut));
  }
  res.end();
}

function rateLimited(res: ServerResponse, anthropic: boolean): void {
  const body = anthropic
    ? { type: 'error', error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } }
    : {
        error: {
          message: 'Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3, Requested 1.',
          type: 'requests',
          param: null,
          code: 'rate_limit_exceeded',
        },
      };
  sendJson(res, 429, body, { 'retry-after': '7', 'x-ratelimit-remaining-requests': '0' });
}

function serverError(res: ServerResponse, anthropic: boolean): void {
  const body = anthropic
    ? { type: 'error', error: { type: 'api_error', message: 'Internal server error' } }
    : { error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null } };
  sendJson(res, 500, body);
}

/** Like OpenAI's 401, which quotes the key it was given: the cassette must not keep it. */
function echoKey(req: IncomingMessage, res: ServerResponse): void {
  const key = String(req.headers.authorization ?? req.headers['x-api-key'] ?? '').replace(/^Bearer /, '');
  sendJson(res, 401, { error: { message: `Incorrect API key provided: ${key}.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

async function readAll(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
