import { describe, expect, it } from 'vitest';
import { startGateway } from '../../src/infra/gateway/index.js';
import { SCENARIOS } from './fake-upstream.js';
import {
  ANTHROPIC_KEY,
  chatRequest,
  DUMMY_KEY,
  messagesRequest,
  OPENAI_KEY,
  post,
  responsesRequest,
  startTestGateway,
  TEST_PRICING,
  useTestGateway,
} from './helpers.js';

const gw = useTestGateway();

describe('credentials', () => {
  it('replaces the client dummy with the real OpenAI key from the environment', async () => {
    const { baseUrls } = gw.gateway.openSession('auth-openai');
    await post(`${baseUrls.openai}/responses`, responsesRequest());
    const seen = gw.fake.requests[0]?.headers;
    expect(seen?.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(seen?.['x-api-key']).toBeUndefined();
    expect(JSON.stringify(seen)).not.toContain(DUMMY_KEY);
  });

  it('sends the Anthropic key as x-api-key and keeps anthropic-version', async () => {
    const { baseUrls } = gw.gateway.openSession('auth-anthropic');
    await post(`${baseUrls.anthropic}/v1/messages?beta=true`, messagesRequest(), { 'anthropic-beta': 'prompt-caching-2024-07-31' });
    const seen = gw.fake.requests[0];
    expect(seen?.path).toBe('/v1/messages?beta=true');
    expect(seen?.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(seen?.headers.authorization).toBeUndefined();
    expect(seen?.headers['anthropic-version']).toBe('2023-06-01');
    expect(seen?.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31');
    expect(JSON.stringify(seen?.headers)).not.toContain(DUMMY_KEY);
  });

  it('reads the key at forward time and stops before the upstream when it is missing', async () => {
    const env: Record<string, string | undefined> = {};
    const other = await startGateway({
      upstreams: { openai: { kind: 'openai', baseUrl: `${gw.fake.url}/v1`, apiKeyEnv: 'LATE_KEY' } },
      env,
      pricing: TEST_PRICING,
    });
    try {
      const { baseUrls } = other.openSession('late');
      const refused = await post(`${baseUrls.openai}/chat/completions`, chatRequest());
      expect(refused.status).toBe(401);
      expect(JSON.parse(refused.text)).toMatchObject({ error: { code: 'missing_api_key', message: expect.stringContaining('LATE_KEY') } });
      expect(gw.fake.requests).toHaveLength(0);
      expect(other.usage('late').requests).toBe(0);
      env['LATE_KEY'] = 'sk-rotated-in-later-0000';
      expect((await post(`${baseUrls.openai}/chat/completions`, chatRequest())).status).toBe(200);
      expect(gw.fake.requests[0]?.headers.authorization).toBe('Bearer sk-rotated-in-later-0000');
    } finally {
      await other.close();
    }
  });

  it('serves extra OpenAI-compatible upstreams under their own name and base path', async () => {
    const other = await startTestGateway(gw.fake, {
      upstreams: {
        openai: { kind: 'openai', baseUrl: `${gw.fake.url}/v1`, apiKeyEnv: 'TEST_OPENAI_KEY' },
        anthropic: { kind: 'anthropic', baseUrl: gw.fake.url, apiKeyEnv: 'TEST_ANTHROPIC_KEY' },
        // Like groq (/openai/v1) or a keyless local vLLM: here the fake's /v1 under another name.
        local: { kind: 'openai', baseUrl: `${gw.fake.url}/v1/` },
      },
    });
    try {
      const { baseUrls } = other.openSession('compat');
      expect(baseUrls['local']).toMatch(/\/local\/v1$/);
      const reply = await post(`${baseUrls['local']}/chat/completions`, chatRequest());
      expect(reply.status).toBe(200);
      expect(gw.fake.requests[0]?.path).toBe('/v1/chat/completions');
      expect(gw.fake.requests[0]?.headers.authorization).toBeUndefined();
      expect(other.usage('compat').requests).toBe(1);
    } finally {
      await other.close();
    }
  });
});

describe('upstream errors', () => {
  it('passes a 429 through unchanged, counted as a request but not as usage', async () => {
    const { baseUrls } = gw.gateway.openSession('rate-limited');
    const reply = await post(`${baseUrls.openai}/chat/completions`, chatRequest({ model: SCENARIOS.rateLimited }));
    expect(reply.status).toBe(429);
    expect(reply.headers.get('retry-after')).toBe('7');
    expect(JSON.parse(reply.text)).toEqual({
      error: { message: expect.stringContaining('Rate limit reached'), type: 'requests', param: null, code: 'rate_limit_exceeded' },
    });
    expect(reply.headers.get('x-crucible-gateway-error')).toBeNull();
    expect(gw.gateway.usage('rate-limited')).toMatchObject({ requests: 1, inputTokens: 0, outputTokens: 0, costUsd: 0 });
  });

  it('passes an Anthropic 500 through unchanged', async () => {
    const { baseUrls } = gw.gateway.openSession('broken');
    const reply = await post(`${baseUrls.anthropic}/v1/messages`, messagesRequest({ model: SCENARIOS.broken, stream: true }));
    expect(reply.status).toBe(500);
    expect(JSON.parse(reply.text)).toEqual({ type: 'error', error: { type: 'api_error', message: 'Internal server error' } });
    expect(gw.gateway.usage('broken')).toMatchObject({ requests: 1, inputTokens: 0, unmeteredResponses: 0 });
  });

  it('passes malformed JSON through byte for byte and reports it as unmetered', async () => {
    const { baseUrls } = gw.gateway.openSession('malformed');
    const reply = await post(`${baseUrls.openai}/chat/completions`, chatRequest({ model: SCENARIOS.malformed }));
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('{"id":"chatcmpl-9","object":"chat.completion","choices":[{"index":0,');
    expect(gw.gateway.usage('malformed')).toMatchObject({ requests: 1, inputTokens: 0, unmeteredResponses: 1 });
  });

  it('answers 502 in the provider shape when the upstream cannot be reached', async () => {
    const other = await startTestGateway(gw.fake, {
      upstreams: { anthropic: { kind: 'anthropic', baseUrl: 'http://127.0.0.1:1', apiKeyEnv: 'TEST_ANTHROPIC_KEY' } },
    });
    try {
      const { baseUrls } = other.openSession('down');
      const reply = await post(`${baseUrls.anthropic}/v1/messages`, messagesRequest());
      expect(reply.status).toBe(502);
      expect(JSON.parse(reply.text)).toMatchObject({ type: 'error', error: { type: 'api_error' } });
      expect(other.usage('down').requests).toBe(1);
    } finally {
      await other.close();
    }
  });
});

describe('other paths', () => {
  it('passes GET /v1/models through with the real key, unmetered', async () => {
    const { baseUrls } = gw.gateway.openSession('models');
    const reply = await fetch(`${baseUrls.openai}/models`, { headers: { authorization: `Bearer ${DUMMY_KEY}` } });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toMatchObject({ object: 'list' });
    expect(gw.fake.requests[0]?.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(gw.gateway.usage('models').requests).toBe(0);
  });

  it('does not hand upstream cookies to the agent', async () => {
    const { baseUrls } = gw.gateway.openSession('cookies');
    const reply = await post(`${baseUrls.openai}/chat/completions`, chatRequest());
    expect(reply.headers.get('set-cookie')).toBeNull();
    expect(reply.headers.get('x-request-id')).toBe('req_7f3c1c9d');
  });

  it('answers 404 outside /s/<token>/<upstream>/', async () => {
    const reply = await post(`${gw.gateway.url}/v1/chat/completions`, chatRequest());
    expect(reply.status).toBe(404);
    expect(JSON.parse(reply.text)).toMatchObject({ error: { code: 'not_found' } });
  });
});
