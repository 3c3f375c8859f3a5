import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { generateText, streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoop } from '../../src/domain/agents/builtin/loop.js';
import { createLanguageModel } from '../../src/domain/agents/builtin/model.js';
import { TOOL_DEFINITIONS } from '../../src/domain/agents/builtin/tools.js';
import { trajectoryWriter } from '../../src/domain/agents/builtin/trajectory.js';
import { parseModelSpec, upstreamFor, type ProviderName } from '../../src/domain/agents/models/providers.js';
import { loadPricing, startGateway, type Gateway } from '../../src/infra/gateway/index.js';
import { createExecutor } from '../../src/infra/sandbox/index.js';
import { useTempDirs } from '../helpers/tmp.js';
import { REPORTED, startProviderServer, type Dialect, type ProviderServer } from './provider-server.js';

interface Case {
  provider: ProviderName;
  dialect: Dialect;
  model: string;
  /** Where the provider's API lives on its host, as its default base URL has it. */
  prefix: string;
  /** The path the gateway must forward a chat/responses/messages call to. */
  expectPath: string;
  priced: boolean;
}

const CASES: Case[] = [
  { provider: 'openai', dialect: 'openai', model: 'gpt-4.1-mini', prefix: '/v1', expectPath: '/v1/responses', priced: true },
  { provider: 'anthropic', dialect: 'anthropic', model: 'claude-sonnet-4-5', prefix: '', expectPath: '/v1/messages', priced: true },
  { provider: 'google', dialect: 'google', model: 'gemini-2.5-flash', prefix: '/v1beta/openai', expectPath: '/v1beta/openai/chat/completions', priced: true },
  { provider: 'groq', dialect: 'groq', model: 'llama-3.3-70b-versatile', prefix: '/openai/v1', expectPath: '/openai/v1/chat/completions', priced: true },
  { provider: 'ollama', dialect: 'ollama', model: 'qwen2.5-coder:7b', prefix: '/v1', expectPath: '/v1/chat/completions', priced: false },
  {
    provider: 'openai-compatible',
    dialect: 'vllm',
    model: 'Qwen/Qwen2.5-Coder-32B-Instruct',
    prefix: '/v1',
    expectPath: '/v1/chat/completions',
    priced: false,
  },
];

const KEYS: Record<string, string> = {
  OPENAI_API_KEY: 'sk-proj-REAL-openai-0123456789',
  ANTHROPIC_API_KEY: 'sk-ant-REAL-anthropic-0123456789',
  GOOGLE_GENERATIVE_AI_API_KEY: 'AIza-REAL-google-0123456789',
  GROQ_API_KEY: 'gsk_REAL-groq-0123456789',
  OPENAI_COMPATIBLE_API_KEY: 'sk-or-REAL-compatible-0123456789',
};

const pricing = loadPricing();
const tempDir = useTempDirs();

describe.each(CASES)('$provider through the gateway', ({ provider, dialect, model, prefix, expectPath, priced }) => {
  let server: ProviderServer;
  let gateway: Gateway;
  let session = 0;
  const spec = parseModelSpec(`${provider}:${model}`);

  beforeAll(async () => {
    server = await startProviderServer(dialect);
    // Ollama is found through OLLAMA_HOST like Ollama's own clients; the others get --base-url.
    const env = { ...KEYS, OLLAMA_HOST: server.url.replace('http://', '') };
    const baseUrl = provider === 'ollama' ? undefined : `${server.url}${prefix}`;
    const upstream = upstreamFor(provider, { env, baseUrl, replay: false, spec: spec.spec });
    gateway = await startGateway({ upstreams: { [provider]: upstream.config }, env, pricing });
  });
  afterAll(async () => {
    await gateway.close();
    await server.close();
  });

  const open = async (): Promise<{ id: string; model: Awaited<ReturnType<typeof createLanguageModel>> }> => {
    const id = `attempt-${++session}`;
    const { baseUrls } = gateway.openSession(id, { model: spec.modelId });
    return { id, model: await createLanguageModel(spec, { baseUrls, apiKey: 'dummy-key-the-agent-holds' }) };
  };

  const expectMetered = (id: string, times: number, unmetered = 0): void => {
    const r = REPORTED[dialect];
    const usage = gateway.usage(id);
    expect(usage).toMatchObject({
      inputTokens: r.input * times,
      cacheReadTokens: r.cached * times,
      cacheWriteTokens: r.cacheWrite * times,
      outputTokens: r.output * times,
      unmeteredResponses: unmetered,
    });
    if (priced) expect(usage.costUsd).toBeGreaterThan(0);
    else expect(usage.costUsd).toBeUndefined();
  };

  it('answers a tool call without streaming; the SDK and the gateway read the same usage, cached tokens included', async () => {
    const { id, model: languageModel } = await open();
    server.queue.push({ kind: 'tool', name: 'read_file', args: { path: 'src/a.py' }, id: 'call_1' });
    const result = await generateText({ model: languageModel, prompt: 'Fix it.', tools: TOOL_DEFINITIONS, maxRetries: 0 });
    expect(result.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([['call_1', 'read_file', { path: 'src/a.py' }]]);
    const r = REPORTED[dialect];
    expect(result.usage.inputTokens).toBe(r.input);
    expect(result.usage.inputTokenDetails.cacheReadTokens ?? 0).toBe(r.cached);
    expect(result.usage.outputTokens).toBe(r.output);
    expectMetered(id, 1);
    const sent = server.received.at(-1);
    expect(sent?.path).toBe(expectPath);
    const auth = String(sent?.headers['x-api-key'] ?? sent?.headers.authorization ?? '');
    if (provider === 'ollama') expect(auth).not.toContain('dummy');
    else
      expect(auth).toContain(
        provider === 'openai-compatible'
          ? KEYS['OPENAI_COMPATIBLE_API_KEY']
          : Object.values(KEYS).find((k) => k.includes(provider === 'google' ? 'google' : provider)),
      );
  });

  it('answers a tool call streamed, metered the same', async () => {
    const { id, model: languageModel } = await open();
    server.queue.push({ kind: 'tool', name: 'list_files', args: { path: 'src' }, id: 'call_2' });
    const result = streamText({ model: languageModel, prompt: 'Fix it.', tools: TOOL_DEFINITIONS, maxRetries: 0 });
    const calls = await result.toolCalls;
    expect(calls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([['call_2', 'list_files', { path: 'src' }]]);
    expect((await result.usage).inputTokens).toBe(REPORTED[dialect].input);
    expectMetered(id, 1);
  });

  it('runs the agent loop: 429 (retry-after), 5xx and malformed JSON are retried, then the tool call is acted on', async () => {
    const { id, model: languageModel } = await open();
    server.queue.push(
      { kind: 'rate-limited' },
      { kind: 'server-error' },
      { kind: 'malformed' },
      { kind: 'tool', name: 'list_files', args: {}, id: 'call_3' },
      { kind: 'tool', name: 'submit', args: { summary: 'ok' }, id: 'call_4' },
    );
    const root = tempDir();
    const workspace = join(root, 'ws');
    for (const dir of [workspace, join(root, 'home'), join(root, 'tmp')]) mkdirSync(dir, { recursive: true });
    const executor = createExecutor('local', { writable: [workspace], hidden: [], readOnly: [], home: join(root, 'home'), tmp: join(root, 'tmp') });
    const waits: number[] = [];
    const signal = new AbortController().signal;
    const result = await runLoop({
      model: languageModel,
      modelName: spec.spec,
      system: 'You fix bugs.',
      instruction: 'Fix it.',
      tools: { root: workspace, executor, signal, testCommand: 'true', testTimeoutMs: 10_000, pathAliases: [], remainingMs: () => 60_000 },
      limits: { maxTurns: 10 },
      signal,
      trajectory: trajectoryWriter(join(root, 'trajectory.jsonl')),
      sleep: async (ms) => void waits.push(ms),
    });
    expect(result).toMatchObject({ stopReason: 'submitted', turns: 2, toolCalls: 2 });
    expect(waits).toEqual([3000, 2000, 4000]);
    expect(gateway.usage(id).requests).toBe(5);
    // The malformed 200 carried no readable usage: the gateway says its counts are a floor.
    expectMetered(id, 2, 1);
  });
});
