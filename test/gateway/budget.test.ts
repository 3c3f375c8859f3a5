import { describe, expect, it } from 'vitest';
import { chatRequest, messagesRequest, post, responsesRequest, useTestGateway } from './helpers.js';

const gw = useTestGateway();

describe('budgets', () => {
  it('stops at maxRequests with an OpenAI-shaped, non-retryable 402', async () => {
    const { baseUrls } = gw.gateway.openSession('requests', { budget: { maxRequests: 2 } });
    expect((await post(`${baseUrls.openai}/responses`, responsesRequest())).status).toBe(200);
    expect((await post(`${baseUrls.openai}/responses`, responsesRequest({ stream: true }))).status).toBe(200);
    const refused = await post(`${baseUrls.openai}/responses`, responsesRequest());
    expect(refused.status).toBe(402);
    expect(refused.headers.get('x-should-retry')).toBe('false');
    expect(JSON.parse(refused.text)).toEqual({
      error: { message: expect.stringContaining('request budget of 2 reached'), type: 'insufficient_quota', param: null, code: 'budget_exceeded' },
    });
    expect(gw.fake.requests).toHaveLength(2);
    expect(gw.gateway.usage('requests')).toMatchObject({ requests: 2, budgetExceeded: 'requests' });
  });

  it('stops at maxTokens with an Anthropic-shaped error once the next request could pass it', async () => {
    // A request reserves its size + 1024 + max_tokens (4096): about 5,600 tokens; it is billed 3,400.
    const { baseUrls } = gw.gateway.openSession('tokens', { budget: { maxTokens: 7000 } });
    expect((await post(`${baseUrls.anthropic}/v1/messages`, messagesRequest({ stream: true }))).status).toBe(200);
    const refused = await post(`${baseUrls.anthropic}/v1/messages`, messagesRequest());
    expect(refused.status).toBe(402);
    expect(JSON.parse(refused.text)).toEqual({
      type: 'error',
      error: {
        type: 'billing_error',
        message: expect.stringMatching(/token budget: this request may use up to \d+ tokens \(4096 output tokens, the request's own limit/),
      },
    });
    expect(gw.fake.requests).toHaveLength(1);
    expect(gw.gateway.usage('tokens')).toMatchObject({ requests: 1, budgetExceeded: 'tokens' });
  });

  it('stops once the priced cost could pass maxCostUsd', async () => {
    // One chat request costs $0.000848 with the test prices and reserves about $0.0014 (its size and 1024 at $1/M, 100 output at $2/M).
    const { baseUrls } = gw.gateway.openSession('cost', { budget: { maxCostUsd: 0.003 } });
    const limited = (stream = false) => ({ ...chatRequest({ stream }), max_tokens: 100 });
    expect((await post(`${baseUrls.openai}/chat/completions`, limited())).status).toBe(200);
    expect((await post(`${baseUrls.openai}/chat/completions`, limited(true))).status).toBe(200);
    const refused = await post(`${baseUrls.openai}/chat/completions`, limited());
    expect(refused.status).toBe(402);
    expect(JSON.parse(refused.text)).toMatchObject({ error: { type: 'insufficient_quota', code: 'budget_exceeded' } });
    const usage = gw.gateway.usage('cost');
    expect(usage.budgetExceeded).toBe('cost');
    expect(usage.costUsd).toBeCloseTo(0.001696, 12);
  });

  it('refuses a cost budget it cannot enforce for an unpriced model, without calling it exceeded', async () => {
    const { baseUrls } = gw.gateway.openSession('cost-unpriced', { budget: { maxCostUsd: 5 } });
    const refused = await post(`${baseUrls.openai}/chat/completions`, chatRequest({ model: 'some-unlisted-model' }));
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toMatchObject({ error: { code: 'model_not_priced' } });
    expect(gw.fake.requests).toHaveLength(0);
    expect(gw.gateway.usage('cost-unpriced').budgetExceeded).toBeUndefined();
  });

  it('holds maxRequests under concurrent requests', async () => {
    const { baseUrls } = gw.gateway.openSession('concurrent', { budget: { maxRequests: 2 } });
    const replies = await Promise.all(Array.from({ length: 5 }, () => post(`${baseUrls.openai}/chat/completions`, chatRequest({ stream: true }))));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 402, 402, 402]);
    expect(gw.fake.requests).toHaveLength(2);
    expect(gw.gateway.usage('concurrent').requests).toBe(2);
  });

  it('counts a model listing against maxRequests like every forwarded request, not as a model request', async () => {
    const { baseUrls } = gw.gateway.openSession('models-counted', { budget: { maxRequests: 1 } });
    expect((await fetch(`${baseUrls.openai}/models`)).status).toBe(200);
    expect((await post(`${baseUrls.openai}/chat/completions`, chatRequest())).status).toBe(402);
    expect(gw.fake.requests).toHaveLength(1);
    expect(gw.gateway.usage('models-counted')).toMatchObject({ requests: 0, sideRequests: 1, budgetExceeded: 'requests' });
  });

  it('reserves the default output for a model with no documented maximum and says so', async () => {
    const { baseUrls } = gw.gateway.openSession('default-output', { budget: { maxTokens: 20_000 } });
    const refused = await post(`${baseUrls.openai}/chat/completions`, chatRequest());
    expect(refused.status).toBe(402);
    expect(refused.text).toContain('32768 output tokens, the default for a model with no documented maximum');
    expect(gw.fake.requests).toHaveLength(0);
  });
});
