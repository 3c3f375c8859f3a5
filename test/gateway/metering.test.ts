import { describe, expect, it } from 'vitest';
import { USAGE } from './fake-upstream.js';
import { chatRequest, messagesRequest, post, responsesRequest, sseData, startTestGateway, useTestGateway } from './helpers.js';

const gw = useTestGateway();

// Costs with TEST_PRICING, worked by hand (USD per million tokens).
const CHAT_COST = (176 * 1 + 1024 * 0.5 + 80 * 2) / 1e6;
const RESPONSES_COST = (464 * 2 + 1536 * 0.5 + 300 * 8) / 1e6;
const MESSAGES_COST = (50 * 3 + 3000 * 0.3 + 200 * 3.75 + 150 * 15) / 1e6;

describe.each([false, true])('metering (stream: %s)', (stream) => {
  it('reads chat completions usage, cached and reasoning tokens included', async () => {
    const { baseUrls } = gw.gateway.openSession(`chat-${stream}`);
    const reply = await post(`${baseUrls.openai}/chat/completions`, chatRequest({ stream, tools: true }));
    expect(reply.status).toBe(200);
    if (!stream) expect(JSON.parse(reply.text)).toMatchObject({ choices: [{ finish_reason: 'tool_calls' }] });
    const usage = gw.gateway.usage(`chat-${stream}`);
    expect(usage).toMatchObject({
      inputTokens: USAGE.chat.prompt,
      outputTokens: USAGE.chat.completion,
      cacheReadTokens: USAGE.chat.cached,
      cacheWriteTokens: 0,
      reasoningTokens: USAGE.chat.reasoning,
      requests: 1,
      unmeteredResponses: 0,
    });
    expect(usage.costUsd).toBeCloseTo(CHAT_COST, 12);
    expect(usage.budgetExceeded).toBeUndefined();
  });

  it('reads responses usage from the body or the response.completed event', async () => {
    const { baseUrls } = gw.gateway.openSession(`responses-${stream}`);
    const reply = await post(`${baseUrls.openai}/responses`, responsesRequest({ stream, tools: true }));
    expect(reply.status).toBe(200);
    if (stream) expect(reply.text).toContain('event: response.completed');
    const usage = gw.gateway.usage(`responses-${stream}`);
    expect(usage).toMatchObject({
      inputTokens: USAGE.responses.input,
      outputTokens: USAGE.responses.output,
      cacheReadTokens: USAGE.responses.cached,
      reasoningTokens: USAGE.responses.reasoning,
      requests: 1,
    });
    expect(usage.costUsd).toBeCloseTo(RESPONSES_COST, 12);
  });

  it('reads messages usage: message_start input side, message_delta output side', async () => {
    const { baseUrls } = gw.gateway.openSession(`messages-${stream}`);
    const reply = await post(`${baseUrls.anthropic}/v1/messages`, messagesRequest({ stream, tools: true }));
    expect(reply.status).toBe(200);
    if (stream) expect(sseData(reply.text).at(-1)).toEqual({ type: 'message_stop' });
    const usage = gw.gateway.usage(`messages-${stream}`);
    const m = USAGE.messages;
    expect(usage).toMatchObject({
      inputTokens: m.input + m.cacheRead + m.cacheWrite,
      outputTokens: m.output,
      cacheReadTokens: m.cacheRead,
      cacheWriteTokens: m.cacheWrite,
      reasoningTokens: 0,
      requests: 1,
    });
    expect(usage.costUsd).toBeCloseTo(MESSAGES_COST, 12);
  });
});

describe('sessions', () => {
  it('keep separate totals and add up requests across APIs', async () => {
    const a = gw.gateway.openSession('sum-a');
    const b = gw.gateway.openSession('sum-b');
    await post(`${a.baseUrls.openai}/chat/completions`, chatRequest());
    await post(`${a.baseUrls.anthropic}/v1/messages`, messagesRequest({ stream: true }));
    await post(`${b.baseUrls.openai}/responses`, responsesRequest());
    const usageA = gw.gateway.usage('sum-a');
    expect(usageA.requests).toBe(2);
    expect(usageA.inputTokens).toBe(USAGE.chat.prompt + USAGE.messages.input + USAGE.messages.cacheRead + USAGE.messages.cacheWrite);
    expect(usageA.costUsd).toBeCloseTo(CHAT_COST + MESSAGES_COST, 12);
    expect(gw.gateway.usage('sum-b').requests).toBe(1);
    expect(gw.gateway.usage('sum-b').inputTokens).toBe(USAGE.responses.input);
  });

  it('leaves cost undefined, never guessed, when a model has no price', async () => {
    const other = await startTestGateway(gw.fake, { pricing: { priceOf: () => undefined, costOf: () => undefined } });
    try {
      const session = other.openSession('unpriced');
      await post(`${session.baseUrls.openai}/chat/completions`, chatRequest());
      const usage = other.usage('unpriced');
      expect(usage.inputTokens).toBe(USAGE.chat.prompt);
      expect(usage.costUsd).toBeUndefined();
      expect('costUsd' in usage).toBe(false);
    } finally {
      await other.close();
    }
  });

  it('refuses unknown and closed sessions in the provider shape', async () => {
    const { baseUrls } = gw.gateway.openSession('closing');
    gw.gateway.closeSession('closing');
    const reply = await post(`${baseUrls.anthropic}/v1/messages`, messagesRequest());
    expect(reply.status).toBe(401);
    expect(JSON.parse(reply.text)).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const unknown = await post(`${gw.gateway.url}/s/not-a-token/openai/v1/chat/completions`, chatRequest());
    expect(unknown.status).toBe(401);
    expect(JSON.parse(unknown.text)).toMatchObject({ error: { code: 'unknown_session' } });
    expect(gw.gateway.usage('closing').requests).toBe(0);
  });

  it('hands out base URLs in each SDK convention', () => {
    const { token, baseUrls } = gw.gateway.openSession('urls');
    expect(baseUrls.openai).toBe(`${gw.gateway.url}/s/${token}/openai/v1`);
    expect(baseUrls.anthropic).toBe(`${gw.gateway.url}/s/${token}/anthropic`);
    expect(() => gw.gateway.openSession('urls')).toThrow(/already has a session/);
  });
});

describe('streaming', () => {
  it('hides the usage chunk it forced on, and still meters', async () => {
    const { baseUrls } = gw.gateway.openSession('forced-usage');
    gw.fake.requests.length = 0;
    const reply = await post(`${baseUrls.openai}/chat/completions`, chatRequest({ stream: true }));
    expect(gw.fake.requests[0]?.json).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const chunks = sseData(reply.text);
    expect(chunks.at(-1)).toBe('[DONE]');
    expect(chunks.some((c) => typeof c === 'object' && c !== null && (c as { usage?: unknown }).usage)).toBe(false);
    expect(gw.gateway.usage('forced-usage').inputTokens).toBe(USAGE.chat.prompt);
  });

  it('keeps the usage chunk when the client asked for it', async () => {
    const { baseUrls } = gw.gateway.openSession('asked-usage');
    const reply = await post(`${baseUrls.openai}/chat/completions`, chatRequest({ stream: true, includeUsage: true }));
    const usageChunk = sseData(reply.text).find((c) => typeof c === 'object' && c !== null && (c as { usage?: unknown }).usage);
    expect(usageChunk).toMatchObject({ choices: [], usage: { prompt_tokens: USAGE.chat.prompt } });
  });

  it('passes events on as they arrive instead of buffering the stream', async () => {
    const { baseUrls } = gw.gateway.openSession('live-stream');
    const response = await fetch(`${baseUrls.anthropic}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'dummy' },
      body: JSON.stringify(messagesRequest({ stream: true, model: 'gated' })),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    // The upstream holds the rest of the stream until released, so this read can only
    // complete if the gw.gateway forwarded message_start on its own.
    let received = '';
    while (!received.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      received += Buffer.from(value).toString('utf8');
    }
    expect(received).toMatch(/^event: message_start\n/);
    gw.fake.release();
    while (!(await reader.read()).done) {
      // drain
    }
    expect(gw.gateway.usage('live-stream').outputTokens).toBe(USAGE.messages.output);
  });

  it('survives a client that leaves mid-stream', async () => {
    const { baseUrls } = gw.gateway.openSession('leaver');
    const abort = new AbortController();
    const response = await fetch(`${baseUrls.openai}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chatRequest({ stream: true, model: 'gated' })),
      signal: abort.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    abort.abort();
    gw.fake.release();
    const next = await post(`${baseUrls.openai}/chat/completions`, chatRequest());
    expect(next.status).toBe(200);
  });
});
