import { afterEach, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/infra/gateway/index.js';
import { PROVIDER_PROMPT_OVERHEAD } from '../../src/infra/gateway/reservation.js';
import { PROMPT_TOKENS, startCountingUpstream, type CountingUpstream } from './counting-upstream.js';
import type { FakeUpstream } from './fake-upstream.js';
import { chatRequest, post, startTestGateway } from './helpers.js';

let upstream: CountingUpstream | undefined;
let gateway: Gateway | undefined;

afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** Eight requests at once, all held by the upstream until every one was either received there or refused. */
async function eightAtOnce(budget: { maxTokens?: number; maxCostUsd?: number }): Promise<{ statuses: number[]; id: string; gateway: Gateway }> {
  upstream = await startCountingUpstream({ hold: true });
  gateway = await startTestGateway({ url: upstream.url } as FakeUpstream);
  const id = 'eight';
  const { baseUrls } = gateway.openSession(id, { model: 'gpt-4.1', budget });
  const body = { ...chatRequest({ model: 'gpt-4.1' }), max_tokens: 1000 };
  // The upstream bills PROMPT_TOKENS in: within what the body's size reserves (the bound the margin is documented for).
  expect(PROMPT_TOKENS).toBeLessThanOrEqual(JSON.stringify(body).length + PROVIDER_PROMPT_OVERHEAD);
  const replies = Array.from({ length: 8 }, () => post(`${baseUrls.openai}/chat/completions`, body));
  const seen = (): number => (upstream as CountingUpstream).received.length + ((gateway as Gateway).usage(id).refused?.requests ?? 0);
  while (seen() < 8) await new Promise((resolve) => setTimeout(resolve, 5));
  upstream.release();
  const statuses = (await Promise.all(replies)).map((r) => r.status);
  return { statuses, id, gateway };
}

describe('a budget holds under 8 concurrent requests', () => {
  it('--max-tokens: each request reserves its worst case, so the attempt never ends above the budget', async () => {
    const { statuses, id, gateway: gw } = await eightAtOnce({ maxTokens: 10_000 });
    const usage = gw.usage(id);
    // Each costs 1,200 + 1,000 = 2,200 tokens; without reservations all 8 were served (17,600).
    expect(usage.inputTokens + usage.outputTokens).toBeLessThanOrEqual(10_000);
    expect(statuses.filter((s) => s === 200).length).toBe(usage.requests);
    expect(usage.requests).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 402).length).toBe(8 - usage.requests);
    expect(usage.budgetExceeded).toBe('tokens');
    expect(upstream?.received).toHaveLength(usage.requests);
  });

  it('--max-cost: the same with the worst-case price', async () => {
    // gpt-4.1 at $2/$8 per million: each request costs $0.0104 and reserves about $0.0106.
    const { statuses, id, gateway: gw } = await eightAtOnce({ maxCostUsd: 0.05 });
    const usage = gw.usage(id);
    expect(usage.costUsd).toBeLessThanOrEqual(0.05);
    expect(usage.requests).toBe(4);
    expect(statuses.filter((s) => s === 402)).toHaveLength(4);
    expect(usage.budgetExceeded).toBe('cost');
  });

  it('releases a request’s hold when it settles, so sequential requests can use the whole budget', async () => {
    upstream = await startCountingUpstream();
    gateway = await startTestGateway({ url: upstream.url } as FakeUpstream);
    const { baseUrls } = gateway.openSession('sequential', { model: 'gpt-4.1', budget: { maxTokens: 10_000 } });
    const body = { ...chatRequest({ model: 'gpt-4.1' }), max_tokens: 1000 };
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post(`${baseUrls.openai}/chat/completions`, body)).status);
    // 2,200 each: after four (8,800) the fifth could pass 10,000 and is refused.
    expect(statuses).toEqual([200, 200, 200, 200, 402, 402]);
    expect(gateway.usage('sequential').inputTokens + gateway.usage('sequential').outputTokens).toBe(8_800);
  });
});
