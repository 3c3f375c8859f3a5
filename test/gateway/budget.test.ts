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

  it('stops at maxTokens with an Anthropic-shaped error', async () => {
    const { baseUrls } = gw.gateway.openSession('tokens', { budget: { maxTokens: 1000 } });
    expect((await post(`${baseUrls.anthropic}/v1/messages`, messagesRequest({ stream: true }))).status).toBe(200);
    const refused = await post(`${baseUrls.anthropic}/v1/messages`, messagesRequest());
    expect(refused.status).toBe(402);
    expect(JSON.parse(refused.text)).toEqual({
      type: 'error',
      error: { type: 'billing_error', message: expect.stringContaining('token budget reached') },
    });
    expect(gw.fake.requests).toHaveLength(1);
    expect(gw.gateway.usage('tokens')).toMatchObject({ requests: 1, budgetExceeded: 'tokens' });
  });

  it('stops once the priced cost reaches maxCostUsd', async () => {
    // One chat request costs $0.000848 with the test prices.
    const { baseUrls } = gw.gateway.openSession('cost', { budget: { maxCostUsd: 0.0015 } });
    expect((await post(`${baseUrls.openai}/chat/completions`, chatRequest())).status).toBe(200);
    expect((await post(`${baseUrls.openai}/chat/completions`, chatRequest({ stream: true }))).status).toBe(200);
    const refused = await post(`${baseUrls.openai}/chat/completions`, chatRequest());
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

  it('does not spend the budget on unmetered paths', async () => {
    const { baseUrls } = gw.gateway.openSession('models-free', { budget: { maxRequests: 0 } });
    expect((await fetch(`${baseUrls.openai}/models`)).status).toBe(200);
    expect((await post(`${baseUrls.openai}/chat/completions`, chatRequest())).status).toBe(402);
  });
});
