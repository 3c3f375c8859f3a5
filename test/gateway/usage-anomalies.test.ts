import { describe, expect, it } from 'vitest';
import { usageReader } from '../../src/infra/gateway/usage-readers.js';
import { SCENARIOS, USAGE } from './fake-upstream.js';
import { chatRequest, post, useTestGateway } from './helpers.js';

const gw = useTestGateway();

const read = (api: 'chat' | 'responses' | 'messages' | 'gemini', body: unknown) => {
  const reader = usageReader(api);
  reader.body(JSON.stringify(body));
  return reader.result();
};

describe('usage that contradicts itself', () => {
  it('is read as reported and flagged, field by field, for each API', () => {
    const chat = read('chat', {
      model: 'gpt-4o-mini',
      usage: { prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050, prompt_tokens_details: { cached_tokens: 1200 } },
    });
    expect(chat.usage).toMatchObject({ inputTokens: 1000, cacheReadTokens: 1200 });
    expect(chat.anomalies).toEqual(['prompt_tokens_details.cached_tokens (1200) is more than prompt_tokens (1000)']);

    const responses = read('responses', {
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 20, output_tokens_details: { reasoning_tokens: 9 } },
    });
    expect(responses.anomalies).toEqual([
      'output_tokens_details.reasoning_tokens (9) is more than output_tokens (5)',
      'total_tokens (20) is not input_tokens + output_tokens (15)',
    ]);

    const messages = read('messages', { usage: { input_tokens: -3, output_tokens: 7, cache_read_input_tokens: 4 } });
    expect(messages.usage).toMatchObject({ inputTokens: 4, outputTokens: 7 });
    expect(messages.anomalies).toEqual(['input_tokens is negative (-3)']);

    const gemini = read('gemini', {
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10, thoughtsTokenCount: 5, totalTokenCount: 110, cachedContentTokenCount: 200 },
    });
    expect(gemini.anomalies).toEqual([
      'cachedContentTokenCount (200) is more than promptTokenCount (100)',
      'totalTokenCount (110) is not promptTokenCount + toolUsePromptTokenCount + candidatesTokenCount + thoughtsTokenCount (115)',
    ]);
  });

  it('is not flagged when the counts agree, totals and thoughts included', () => {
    expect(
      read('chat', { usage: { prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050, prompt_tokens_details: { cached_tokens: 1000 } } }).anomalies,
    ).toBeUndefined();
    expect(read('responses', { usage: { input_tokens: 10, output_tokens: 5 } }).anomalies).toBeUndefined();
    expect(
      read('gemini', {
        usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10, thoughtsTokenCount: 5, toolUsePromptTokenCount: 3, totalTokenCount: 118 },
      }).anomalies,
    ).toBeUndefined();
  });

  it("is counted on the session's usage with its first contradictions, while consistent responses add nothing", async () => {
    const { baseUrls } = gw.gateway.openSession('contradicts');
    expect((await post(`${baseUrls.openai}/chat/completions`, chatRequest({ model: SCENARIOS.contradictoryUsage }))).status).toBe(200);
    expect((await post(`${baseUrls.openai}/chat/completions`, chatRequest({ model: SCENARIOS.contradictoryUsage }))).status).toBe(200);
    expect((await post(`${baseUrls.openai}/chat/completions`, chatRequest({}))).status).toBe(200);
    const usage = gw.gateway.usage('contradicts');
    expect(usage.requests).toBe(3);
    expect(usage.cacheReadTokens).toBe(2 * (USAGE.chat.prompt + 300) + USAGE.chat.cached);
    expect(usage.anomalies).toEqual({
      responses: 2,
      examples: [
        `prompt_tokens_details.cached_tokens (${USAGE.chat.prompt + 300}) is more than prompt_tokens (${USAGE.chat.prompt})`,
        `total_tokens (999) is not prompt_tokens + completion_tokens (${USAGE.chat.prompt + USAGE.chat.completion})`,
      ],
    });

    const { baseUrls: clean } = gw.gateway.openSession('consistent');
    await post(`${clean.openai}/chat/completions`, chatRequest({}));
    expect(gw.gateway.usage('consistent').anomalies).toBeUndefined();
  });
});
