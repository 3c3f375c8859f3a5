import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { pricingFromTable } from '../../src/infra/gateway/pricing.js';
import { startGateway, type Gateway, type GatewayOptions } from '../../src/infra/gateway/index.js';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.js';

export const OPENAI_KEY = 'sk-proj-REALKEY-openai-5f2c9a7b1e3d4c6f';
export const ANTHROPIC_KEY = 'sk-ant-api03-REALKEY-anthropic-8e1d7c3b';
export const GEMINI_KEY = 'AIzaSy-REALKEY-gemini-0c4e9d2a7b';
export const DUMMY_KEY = 'dummy-key-inside-sandbox';

/** Round numbers so expected costs can be worked out by hand in the tests. */
export const TEST_PRICING = pricingFromTable(
  new Map([
    ['gpt-4o-mini', { input: 1, output: 2, cacheRead: 0.5 }],
    ['gpt-4.1', { input: 2, output: 8, cacheRead: 0.5 }],
    ['claude-sonnet-4-5', { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }],
    ['gemini-2.5-pro', { input: 1.25, output: 10, cacheRead: 0.25 }],
  ]),
);

/**
 * A fake upstream and a gateway in front of it, shared by a whole test file; the fake's request
 * log is emptied before each test. Read `fake` and `gateway` inside tests (they are set in beforeAll).
 */
export function useTestGateway(): { readonly fake: FakeUpstream; readonly gateway: Gateway } {
  const held = {} as { fake: FakeUpstream; gateway: Gateway };
  beforeAll(async () => {
    held.fake = await startFakeUpstream();
    held.gateway = await startTestGateway(held.fake);
  });
  afterAll(async () => {
    await held.gateway?.close();
    await held.fake?.close();
  });
  beforeEach(() => {
    if (held.fake) held.fake.requests.length = 0;
  });
  return held;
}

export function startTestGateway(fake: FakeUpstream, options: GatewayOptions = {}): Promise<Gateway> {
  return startGateway({
    upstreams: {
      openai: { kind: 'openai', baseUrl: `${fake.url}/v1`, apiKeyEnv: 'TEST_OPENAI_KEY' },
      anthropic: { kind: 'anthropic', baseUrl: fake.url, apiKeyEnv: 'TEST_ANTHROPIC_KEY' },
      gemini: { kind: 'gemini', baseUrl: fake.url, apiKeyEnv: 'TEST_GEMINI_KEY' },
    },
    env: { TEST_OPENAI_KEY: OPENAI_KEY, TEST_ANTHROPIC_KEY: ANTHROPIC_KEY, TEST_GEMINI_KEY: GEMINI_KEY },
    pricing: TEST_PRICING,
    ...options,
  });
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
}

/** A client as an agent would be: dummy key in both auth headers the SDKs use. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${DUMMY_KEY}`,
      'x-api-key': DUMMY_KEY,
      'x-goog-api-key': DUMMY_KEY,
      'anthropic-version': '2023-06-01',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const TOOLS_OPENAI = [
  {
    type: 'function',
    function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  },
];

export function chatRequest(
  options: { stream?: boolean; tools?: boolean; model?: string; prompt?: string; includeUsage?: boolean } = {},
): Record<string, unknown> {
  return {
    model: options.model ?? 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: options.prompt ?? 'Fix the failing test in src/a.ts' },
    ],
    ...(options.tools ? { tools: TOOLS_OPENAI, tool_choice: 'auto' } : {}),
    temperature: 0,
    ...(options.stream ? { stream: true } : {}),
    ...(options.includeUsage ? { stream_options: { include_usage: true } } : {}),
  };
}

export function responsesRequest(options: { stream?: boolean; tools?: boolean; model?: string; prompt?: string } = {}): Record<string, unknown> {
  return {
    model: options.model ?? 'gpt-4.1',
    instructions: 'You are a coding agent.',
    input: [{ role: 'user', content: [{ type: 'input_text', text: options.prompt ?? 'Fix the failing test in src/a.ts' }] }],
    ...(options.tools
      ? { tools: [{ type: 'function', name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } }, strict: false }] }
      : {}),
    ...(options.stream ? { stream: true } : {}),
  };
}

export function messagesRequest(options: { stream?: boolean; tools?: boolean; model?: string; prompt?: string } = {}): Record<string, unknown> {
  return {
    model: options.model ?? 'claude-sonnet-4-5',
    max_tokens: 4096,
    system: [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }],
    messages: [{ role: 'user', content: options.prompt ?? 'Fix the failing test in src/a.ts' }],
    ...(options.tools
      ? { tools: [{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }] }
      : {}),
    ...(options.stream ? { stream: true } : {}),
    metadata: { user_id: 'session-6b1f' },
  };
}

/** A Gemini generateContent body; the model and streaming are in the path (see geminiPath). */
export function geminiRequest(options: { tools?: boolean; prompt?: string; system?: string } = {}): Record<string, unknown> {
  return {
    contents: [{ role: 'user', parts: [{ text: options.prompt ?? 'Fix the failing test in src/a.ts' }] }],
    systemInstruction: { parts: [{ text: options.system ?? 'You are a coding agent.' }] },
    ...(options.tools
      ? {
          tools: [
            {
              functionDeclarations: [
                { name: 'read_file', description: 'Read a file', parameters: { type: 'OBJECT', properties: { path: { type: 'STRING' } } } },
              ],
            },
          ],
        }
      : {}),
    generationConfig: { temperature: 0, thinkingConfig: { includeThoughts: true } },
  };
}

export function geminiPath(model: string, stream: boolean): string {
  return stream ? `/v1beta/models/${model}:streamGenerateContent?alt=sse` : `/v1beta/models/${model}:generateContent`;
}

/** POST over a Unix socket, as a sandbox without network reaches the gateway. */
export function postOverSocket(socketPath: string, path: string, body: unknown): Promise<Reply> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), authorization: `Bearer ${DUMMY_KEY}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
          resolve({ status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Data payloads of an SSE body, parsed where they are JSON. */
export function sseData(text: string): unknown[] {
  return text
    .split('\n\n')
    .flatMap((block) =>
      block
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6)),
    )
    .map((data) => (data === '[DONE]' ? data : (JSON.parse(data) as unknown)));
}
